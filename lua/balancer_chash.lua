-- balancer_chash: consistent hashing ("upstream-hash-by" without subset):
-- the value of an nginx variable expression ($request_uri, $remote_addr,
-- $http_x_user …) picks the endpoint on a ring of the backend's peers (see
-- ring.lua), so the same key always lands on the same endpoint and removing
-- one of N endpoints moves about 1/N of the keys.
--
-- A retry of the same request goes to the next distinct peer round the
-- ring, so it too is the same for the same key. See balancer_round_robin.lua
-- for the interface.
local ring = require("ring")
local util = require("util")

local setmetatable = setmetatable
local type = type

local _M = { name = "chash" }
_M.__index = _M

-- expression returns the hash expression of backend ("" when absent).
local function expression(backend)
  local cfg = backend.upstreamHashByConfig
  local expr = type(cfg) == "table" and cfg["upstream-hash-by"] or nil
  if type(expr) ~= "string" then
    return ""
  end
  return expr
end

function _M.new(backend, peers, fingerprint)
  local o = setmetatable({}, _M)
  o:sync(backend, peers, fingerprint)
  return o
end

-- sync rebuilds the ring only when the peer set changed.
function _M:sync(backend, peers, fingerprint)
  self.name = backend.name
  local expr = expression(backend)
  if expr ~= self.expression then
    self.expression = expr
    self.parts = util.compile_expression(expr)
  end
  if self.fingerprint == fingerprint then
    return
  end
  local ids = {}
  for i = 1, #peers do
    ids[i] = peers[i].key
  end
  self.peers = peers
  self.fingerprint = fingerprint
  self.ring = ring.new(ids)
end

function _M:size()
  return #self.peers
end

function _M:balance(try)
  local peers = self.peers
  if #peers == 0 then
    return nil
  end
  local key = util.expand(self.parts)
  local i
  if not try or try <= 1 then
    i = self.ring:find(key)
  else
    local walk = self.ring:walk(key, try)
    i = walk[#walk]
  end
  local peer = peers[i]
  return peer.address, peer.port
end

return _M
