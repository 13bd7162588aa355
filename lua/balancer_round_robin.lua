-- balancer_round_robin: the "round_robin" load-balance implementation: each
-- worker walks the backend's peers in order. One balancer implementation
-- lives in one file; balancer.lua picks it (see implementation() there).
--
-- An implementation is a table with:
--   new(backend, peers, fingerprint) -> instance
--   instance:sync(backend, peers, fingerprint)   called when the backends change
--   instance:size() -> number of usable peers
--   instance:balance(try, ctx) -> address, port[, picked]   (try: 1 for
--                                the first attempt of a request, 2 for its
--                                first retry …; ctx: the request's ngx.ctx)
-- and optionally:
--   instance:after_balance(picked, bound_ms)   run in the log phase (ewma
--                               measures there): picked as the request's
--                               last balance() returned it, bound_ms the
--                               milliseconds since that try started (nil:
--                               unknown), no less than its response time
--   instance:is_affinitized()   true when the request is bound to this
--                               backend (a sticky cookie of it), for canary
-- where peers is a list of {address = "10.0.0.1" or "[::1]", port = 8080,
-- key = "10.0.0.1:8080"} (key as nginx writes $upstream_addr) and fingerprint
-- a string equal for equal peer sets. An instance keeps its state across
-- syncs whose fingerprint is unchanged.
local setmetatable = setmetatable

local _M = { name = "round_robin" }
_M.__index = _M

function _M.new(backend, peers, fingerprint)
  local o = setmetatable({}, _M)
  o:sync(backend, peers, fingerprint)
  return o
end

-- sync keeps the peers (and so the position in the round) when the peer
-- set is unchanged; a new set keeps the position, wrapped round if need be.
function _M:sync(backend, peers, fingerprint)
  self.name = backend.name
  if self.fingerprint == fingerprint then
    return
  end
  self.peers = peers
  self.fingerprint = fingerprint
  self.next = self.next or 1
end

function _M:size()
  return #self.peers
end

function _M:balance(_)
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
