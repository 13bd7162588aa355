-- balancer_chashsubset: consistent hashing to a subset
-- ("upstream-hash-by" with "upstream-hash-by-subset"): the key picks a fixed
-- set of "upstream-hash-by-subset-size" endpoints (3 when unset) and each
-- request goes to one of them at random, as in ingress-nginx.
--
-- The subset of a key is the first subset-size distinct peers going round
-- the ring of peers from the key (see ring.lua), rather than ingress-nginx's
-- fixed chunks of the endpoint list: removing one of N endpoints changes only
-- the subsets that held it, each by that one endpoint. A retry goes to
-- another member of the subset while there is one. See
-- balancer_round_robin.lua for the interface.
local ring = require("ring")
local util = require("util")

local setmetatable = setmetatable
local type = type
local tonumber = tonumber
local math_floor = math.floor
local math_random = math.random

local DEFAULT_SUBSET_SIZE = 3

local _M = { name = "chashsubset" }
-- keeps_request: balance() reads or writes the request's ngx.ctx (the
-- subset's first try, for the next): balancer.lua makes one for each
-- request (see balancer.rewrite).
_M.keeps_request = true
_M.__index = _M

local function settings(backend)
  local cfg = backend.upstreamHashByConfig
  if type(cfg) ~= "table" then
    return "", DEFAULT_SUBSET_SIZE
  end
  local expr = cfg["upstream-hash-by"]
  if type(expr) ~= "string" then
    expr = ""
  end
  local size = tonumber(cfg["upstream-hash-by-subset-size"])
  if not size or size < 1 then
    size = DEFAULT_SUBSET_SIZE
  end
  return expr, math_floor(size)
end

function _M.new(backend, peers, fingerprint)
  local o = setmetatable({}, _M)
  o:sync(backend, peers, fingerprint)
  return o
end

-- sync rebuilds the ring only when the peer set changed.
function _M:sync(backend, peers, fingerprint)
  self.name = backend.name
  local expr, size = settings(backend)
  if expr ~= self.expression then
    self.expression = expr
    self.parts = util.compile_expression(expr)
  end
  self.subset_size = size
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
  local subset = self.ring:walk(util.expand(self.parts), self.subset_size)
  local n = #subset
  -- The first try starts at a random member; each retry takes the next one.
  local ctx = ngx.ctx
  local start = ctx.chashsubset_start
  if not start or not try or try <= 1 then
    start = math_random(n)
    ctx.chashsubset_start = start
  end
  local i = subset[(start + (try or 1) - 2) % n + 1]
  local peer = peers[i]
  return peer.address, peer.port
end

return _M
