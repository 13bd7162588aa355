-- balancer_round_robin: the "round_robin" load-balance implementation: each
-- worker walks the backend's peers in order. One balancer implementation
-- lives in one file; balancer.lua picks it by backend["load-balance"].
--
-- An implementation is a table with:
--   new(backend, peers, fingerprint) -> instance
--   instance:sync(backend, peers, fingerprint)   called when the backends change
--   instance:size() -> number of usable peers
--   instance:balance() -> address, port
-- where peers is a list of {address = "10.0.0.1" or "[::1]", port = 8080}
-- and fingerprint a string equal for equal peer sets.
local setmetatable = setmetatable

local _M = { name = "round_robin" }
_M.__index = _M

function _M.new(backend, peers, fingerprint)
  local o = setmetatable({}, _M)
  o:sync(backend, peers, fingerprint)
  return o
end

-- sync keeps the position in the round when the peer set is unchanged.
function _M:sync(backend, peers, fingerprint)
  self.name = backend.name
  if self.fingerprint == fingerprint then
    return
  end
  self.peers = peers
  self.fingerprint = fingerprint
  self.next = 1
end

function _M:size()
  return #self.peers
end

function _M:balance()
  local n = #self.peers
  if n == 0 then
    return nil
  end
  local i = self.next
  if i > n then
    i = 1
  end
  self.next = i % n + 1
  local peer = self.peers[i]
  return peer.address, peer.port
end

return _M
