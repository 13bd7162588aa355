-- balancer_ewma: the "ewma" load-balance implementation: a peak EWMA of
-- each endpoint's upstream response time, and a pick of two: every request
-- draws two distinct endpoints at random and takes the one with the lower
-- score (as ingress-nginx, after Finagle's PeakEwma).
--
-- A worker's EWMA of an endpoint is decayed towards 0 since it was last
-- measured (time constant DECAY_TIME); a measurement higher than the score
-- replaces it at once (the peak), a lower one is blended in with the
-- weight of the time since the last one (so a worker that measures half
-- the requests moves its EWMA as fast, in time, as one that measures all).
--
-- Every worker keeps the EWMA of its own measurements in its peer tables;
-- the workers share the highest in the shared dict balancer_ewma, one
-- entry per endpoint (the score as its value, the time of its writer's
-- last measurement as its flags: milliseconds modulo 2^32). A worker
-- offers its EWMA to the entry (publish) at most every REFRESH seconds,
-- with a measurement or a pick of the endpoint, and at once when it is
-- twice the entry (a slow endpoint is shared at once): the entry takes it
-- when it is higher than the entry's value (both decayed to now), else
-- another worker's higher EWMA stays. What a worker wrote never needs
-- taking back: blending a lower measurement in never takes an EWMA below
-- its value decayed, which is what the entry shows. An endpoint's score is
-- the higher of the worker's own EWMA and its copy of the entry, read
-- again when REFRESH old. So a slow endpoint any worker found is avoided
-- by all within REFRESH, and the request path reads and writes the dict
-- once every REFRESH an endpoint (a read and a write every request were
-- about 1,400 of the 6,000 instructions ewma cost over round_robin), one
-- entry an endpoint whatever the number of workers. A worker that is
-- exiting (a reload) offers nothing. Without the dict (a config without
-- it) each worker has its own scores, with a log line.
--
-- Measurements come from balancer.log() (log_by_lua) through after_balance:
-- the last $upstream_response_time, which nginx counts from the start of
-- the connection, for the endpoint the last balance() picked (balancer.lua
-- keeps it for the log phase under the request's reqctx.key()), not read
-- when it cannot change the worker's EWMA (see learn). An endpoint
-- that joins an existing set starts at the average score of the others (a
-- slow start), as in ingress-nginx. A retry avoids the endpoints this
-- request already tried. See balancer_round_robin.lua for the interface.
local util = require("util")

local ngx = ngx
local ngx_now = ngx.now
local ngx_worker_exiting = ngx.worker.exiting
local ngx_log = ngx.log
local ngx_WARN = ngx.WARN
local setmetatable = setmetatable
local ipairs = ipairs
local math_exp = math.exp
local math_floor = math.floor
local math_random = math.random

local DECAY_TIME = 10  -- seconds
local EXPIRE = 600     -- seconds without a measurement before a score is dropped
local DICT = "balancer_ewma"
-- seconds a pick trusts its copy of an endpoint's dict entry, and a worker
-- waits between two publications of its EWMA of it (ngx.now() moves with
-- the event loop)
local REFRESH = 0.1

local _M = { name = "ewma" }
_M.__index = _M

-- local_store stands in for the shared dict when the config lacks it.
local local_store = {
  data = {},
  flags = {},
  get = function(self, k) return self.data[k], self.flags[k] end,
  set = function(self, k, v, _, f)
    self.data[k], self.flags[k] = v, f
    return true
  end,
  safe_add = function(self, k, v, _, f)
    if self.data[k] ~= nil then return nil, "exists" end
    self.data[k], self.flags[k] = v, f
    return true
  end,
  delete = function(self, k) self.data[k], self.flags[k] = nil, nil end,
}
local warned = false

local function store()
  local dict = ngx.shared[DICT]
  if dict then
    return dict
  end
  if not warned then
    warned = true
    ngx_log(ngx_WARN, "balancer_ewma: no lua_shared_dict ", DICT, ": scores are kept per worker")
  end
  return local_store
end

local WRAP = 4294967296 -- 2^32: the flags of a shared-dict entry are 32 bits

-- stamp is now in milliseconds modulo 2^32, as a signed 32-bit number
-- (resty.core passes the flags to nginx as a C int: LuaJIT would turn a
-- number of 2^31 or more into INT_MIN on x86-64, every ~25 days).
local function stamp(now)
  local s = math_floor(now * 1000) % WRAP
  if s >= WRAP / 2 then
    return s - WRAP
  end
  return s
end

-- age returns the seconds from the stamp at to now (0 when at is later: the
-- other worker's clock was read a little after this one's). Both stamps
-- are modulo 2^32, so the difference is taken modulo 2^32 too.
local function age(now, at)
  local d = stamp(now) - (at or 0)
  if d < -WRAP / 2 then
    d = d + WRAP
  elseif d > WRAP / 2 then
    d = d - WRAP
  end
  if d <= 0 then
    return 0
  end
  return d / 1000
end

-- for TestEWMATimeStamps (test/e2e), through a real shared dict
_M.stamp, _M.age = stamp, age

-- decayed returns ewma, measured at stamp at, decayed to now.
local function decayed(ewma, at, now)
  local td = age(now, at)
  if td == 0 then
    return ewma
  end
  return ewma * math_exp(-td / DECAY_TIME)
end

-- key_of is the dict key of the endpoint peer_key of backend.
local function key_of(backend, peer_key)
  return "e " .. backend .. " " .. peer_key
end
_M.key_of = key_of -- for TestEWMAReadsTheOtherWorkersScores

-- own returns this worker's EWMA of peer decayed to now (0 when it never
-- measured it). A clock gone back is taken as now.
local function own(peer, now)
  local ewma = peer.own
  local td = now - peer.own_at
  if td > 0 then
    return ewma * math_exp(-td / DECAY_TIME)
  end
  if td < 0 then
    peer.own_at = now
  end
  return ewma
end

-- read_entry reads peer's dict entry: its value decayed to now (0 when
-- there is none), which becomes the worker's copy of it.
local function read_entry(dict, peer, now)
  local ewma, at = dict:get(peer.ewma_key)
  local v = 0
  if ewma then
    v = decayed(ewma, at, now)
  end
  peer.entry, peer.read = v, now
  return v
end

-- publish offers this worker's EWMA of peer to its dict entry (see the top
-- of the file), and reads the entry again.
local function publish(dict, peer, now)
  peer.published, peer.dirty = now, false
  local v = read_entry(dict, peer, now)
  if ngx_worker_exiting() then
    return
  end
  local mine = own(peer, now)
  if mine > v then
    dict:set(peer.ewma_key, peer.own, EXPIRE, stamp(peer.own_at))
    peer.entry = mine
  end
end

-- score returns peer's score now: the higher of this worker's EWMA and its
-- copy of the dict entry (read again, or published to, when REFRESH old).
local function score(dict, peer, now)
  local read = peer.read
  if now - read >= REFRESH or now < read then
    if peer.dirty then
      publish(dict, peer, now)
    else
      read_entry(dict, peer, now)
    end
    read = now
  end
  local s = own(peer, now)
  local entry = peer.entry
  local td = now - read
  if td > 0 then
    entry = entry * math_exp(-td / DECAY_TIME)
  end
  if entry > s then
    return entry
  end
  return s
end

function _M.new(backend, peers, fingerprint)
  local o = setmetatable({ by_key = {}, peers = {} }, _M)
  o:sync(backend, peers, fingerprint)
  return o
end

-- sync keeps the peer tables (and this worker's EWMAs) when the peer set
-- is unchanged; otherwise an endpoint that stays keeps its EWMA, one that
-- left has its dict entry deleted, and one that joined starts at the
-- average score of the others (a slow start; the dict entry, which a
-- balancer made again or a worker after a reload finds, counts in its
-- score as ever).
function _M:sync(backend, peers, fingerprint)
  self.name = backend.name
  if self.fingerprint == fingerprint then
    return
  end
  local dict = store()
  local now = ngx_now()
  local fresh, by_key = {}, {}
  for i = 1, #peers do
    local p = peers[i]
    -- every field set here, none added later: every peer table has the
    -- same layout, which LuaJIT's compiled code expects (a field added
    -- to some peers only makes their picks leave it, at a cost)
    local peer = {
      address = p.address, port = p.port, key = p.key,
      ewma_key = key_of(backend.name, p.key),
      -- this worker's EWMA and the time of its last measurement (0: never)
      own = 0, own_at = 0,
      -- the dict entry's value decayed to read, and when it was read
      entry = 0, read = -REFRESH,
      -- when this worker last published, whether a measurement since
      -- waits for it
      published = -REFRESH, dirty = false,
    }
    local old = self.by_key[p.key]
    if old then
      peer.own, peer.own_at = old.own, old.own_at
      peer.entry, peer.read = old.entry, old.read
      peer.published, peer.dirty = old.published, old.dirty
    end
    fresh[i] = peer
    by_key[p.key] = peer
  end
  local total, count_kept = 0, 0
  for _, old in ipairs(self.peers) do
    local kept = by_key[old.key]
    if kept then
      local s = score(dict, kept, now)
      if s > 0 then
        total, count_kept = total + s, count_kept + 1
      end
    else
      dict:delete(old.ewma_key)
    end
  end
  if count_kept > 0 and self.fingerprint ~= nil then
    local start = total / count_kept
    for _, peer in ipairs(fresh) do
      if not self.by_key[peer.key] then
        peer.own, peer.own_at = start, now
      end
    end
  end
  self.peers = fresh
  self.by_key = by_key
  self.fingerprint = fingerprint
end

function _M:size()
  return #self.peers
end

-- balance returns the address and port of the peer picked, and the peer
-- (balancer.lua gives it back to after_balance()).
function _M:balance(try)
  local peers = self.peers
  local n = #peers
  if n == 0 then
    return nil
  end
  local peer
  if n == 1 then
    peer = peers[1]
  else
    -- candidates: the peers this request has not tried yet (all when every
    -- one has been tried).
    local candidates = peers
    if try and try > 1 then
      local tried = util.tried_peers(ngx.var.upstream_addr)
      local left = {}
      for i = 1, n do
        if not tried[peers[i].key] then
          left[#left + 1] = peers[i]
        end
      end
      if #left > 0 then
        candidates = left
      end
    end
    local m = #candidates
    if m == 1 then
      peer = candidates[1]
    else
      local i = math_random(m)
      local j = math_random(m - 1)
      if j >= i then
        j = j + 1
      end
      local dict = store()
      local now = ngx_now()
      local a, b = candidates[i], candidates[j]
      if score(dict, b, now) < score(dict, a, now) then
        peer = b
      else
        peer = a
      end
    end
  end
  return peer.address, peer.port, peer
end

-- blend blends rtt, measured now, into this worker's EWMA of peer. A
-- measurement at the same now as the last one (td 0, so w 1) that is no
-- higher than the EWMA leaves it as it is: own * 1 + rtt * 0 is own.
local function blend(peer, rtt, now)
  -- (never measured: own_at is 0, w is 0, ewma becomes rtt)
  local ewma = peer.own
  local td = now - peer.own_at
  local w = td > 0 and math_exp(-td / DECAY_TIME) or 1
  if rtt < ewma * w then
    ewma = ewma * w + rtt * (1 - w)
  else
    ewma = rtt
  end
  peer.own, peer.own_at = ewma, now
end

-- offer publishes this worker's EWMA of peer after a measurement when the
-- last publication is REFRESH old, or at once when the EWMA is twice the
-- entry's value (see the top of the file); else it waits for the next pick
-- or measurement REFRESH later.
local function offer(peer, now)
  local published = peer.published
  if now - published >= REFRESH or now < published or peer.own > 2 * peer.entry then
    publish(store(), peer, now)
  else
    peer.dirty = true
  end
end

local function measure(peer, rtt, now)
  blend(peer, rtt, now)
  offer(peer, now)
end

local function response_time()
  return util.last_seconds(ngx.var.upstream_response_time)
end

-- learn takes the last try's response time, which response_time() reads,
-- into this worker's EWMA of the peer that served it (the last one
-- balance() picked, while it is still one of this balancer's peers: a
-- sync meanwhile may have made new peer tables). bound_ms is no less than
-- that time, in milliseconds (nil: unknown): when it is no more than an
-- EWMA this worker measured at the same now, blending the time in would
-- leave the EWMA as it is (see blend), so the variable is not read, which
-- is half of what ewma costs a request over round_robin; the measurement
-- is offered as it would be. At full speed most responses of an endpoint
-- end in a millisecond in which the worker measured it already.
function _M:learn(picked, bound_ms, read)
  local peer = picked and self.by_key[picked.key]
  if not peer then
    return
  end
  local now = ngx_now()
  if bound_ms and peer.own_at == now and bound_ms / 1000 <= peer.own then
    offer(peer, now)
    return
  end
  local rtt = read()
  if not rtt then
    return
  end
  measure(peer, rtt, now)
end

-- after_balance runs in the log phase (balancer.log()): bound_ms is the
-- milliseconds on nginx's clock since the last try started, no less than
-- its response time: $upstream_response_time is the difference of the
-- same clock's values, the first taken right before balance().
function _M:after_balance(picked, bound_ms)
  self:learn(picked, bound_ms, response_time)
end

-- measured: a measurement of rtt seconds by this worker of the endpoint
-- key (none when key is no peer's), as after_balance takes one; for
-- TestEWMAPublishes.
function _M:measured(key, rtt)
  local peer = self.by_key[key]
  if peer then
    measure(peer, rtt, ngx_now())
  end
end

return _M
