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
-- Every worker keeps the EWMA of its own measurements in its peer tables
-- and publishes it in the shared dict balancer_ewma, one entry per
-- endpoint and worker (the score as its value, the time of its last
-- measurement as its flags: milliseconds modulo 2^32): at once when it
-- rose above what it last published, else with the first measurement or
-- pick of the endpoint REFRESH seconds after the last publication.
-- An endpoint's score is the higher of this worker's EWMA and the other
-- workers' entries, which a pick reads again once its copy of them is
-- REFRESH old: what one worker measures steers every worker's picks within
-- REFRESH, and a slow endpoint any worker found is avoided by all. The
-- request path itself reads and writes no shared dict in most requests
-- (both were about 1,400 of the 6,000 instructions ewma cost over
-- round_robin), and no measurement of one worker can overwrite another's.
-- Without the dict (a config without it) each worker has its own scores,
-- with a log line.
--
-- Measurements come from balancer.log() (log_by_lua) through after_balance:
-- the last $upstream_response_time, which nginx counts from the start of
-- the connection, for the endpoint the last balance() picked (balancer.lua
-- keeps it for the log phase under the request's reqctx.key()). An endpoint
-- that joins an existing set starts at the average score of the others (a
-- slow start), as in ingress-nginx. A retry avoids the endpoints this
-- request already tried. See balancer_round_robin.lua for the interface.
local util = require("util")

local ngx = ngx
local ngx_now = ngx.now
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
-- seconds a pick trusts its copy of the other workers' entries of an
-- endpoint, and a worker waits between two publications of its own EWMA
-- (ngx.now() moves with the event loop)
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

-- workers returns this worker's number (0 outside a worker: a test's
-- single-process nginx) and the number of workers.
local worker, worker_count
local function workers()
  if not worker then
    worker, worker_count = ngx.worker.id() or 0, ngx.worker.count() or 1
  end
  return worker, worker_count
end

-- prefix_of is the start of the dict keys of the endpoint peer_key of
-- backend: a worker's key adds its number. The keys themselves are made
-- when used (at most every REFRESH an endpoint), not kept: at 100,000
-- backends of three endpoints, a worker would keep 300,000 more strings.
local function prefix_of(backend, peer_key)
  return "e " .. backend .. " " .. peer_key .. " "
end

-- key_of is the dict key of worker id's EWMA of the endpoint peer_key of
-- backend.
local function key_of(backend, peer_key, id)
  return prefix_of(backend, peer_key) .. id
end
_M.key_of = key_of -- for TestEWMAReadsTheOtherWorkersScores

-- own returns this worker's EWMA of peer decayed to now (0 when it never
-- measured it).
local function own(peer, now)
  local ewma = peer.own
  local td = now - peer.own_at
  if td > 0 then
    return ewma * math_exp(-td / DECAY_TIME)
  end
  return ewma
end

-- publish writes this worker's EWMA of peer into its dict entry, stamped
-- with the time of its last measurement.
local function publish(dict, peer, now)
  dict:set(peer.prefix .. workers(), peer.own, EXPIRE, stamp(peer.own_at))
  peer.published, peer.published_ewma, peer.dirty = now, peer.own, false
end

-- refresh reads the other workers' entries of peer: the highest of them,
-- decayed to now, becomes its copy (0 when none has one). A measurement
-- this worker has not published yet goes out now.
local function refresh(dict, peer, now)
  local high = 0
  local id, count = workers()
  for w = 0, count - 1 do
    if w ~= id then
      local ewma, at = dict:get(peer.prefix .. w)
      if ewma then
        local v = decayed(ewma, at, now)
        if v > high then
          high = v
        end
      end
    end
  end
  peer.other, peer.read = high, now
  if peer.dirty then
    publish(dict, peer, now)
  end
end

-- score returns peer's score now: the higher of this worker's EWMA and
-- the other workers' (0 when nobody measured it).
local function score(dict, peer, now)
  local read = peer.read
  if now - read >= REFRESH or now < read then
    refresh(dict, peer, now)
    read = now
  end
  local s = own(peer, now)
  local other = peer.other
  local td = now - read
  if td > 0 then
    other = other * math_exp(-td / DECAY_TIME)
  end
  if other > s then
    return other
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
-- left has this worker's entry deleted, and one that joined starts from
-- this worker's entry of it if there is one, else at the average score of
-- the others.
function _M:sync(backend, peers, fingerprint)
  self.name = backend.name
  if self.fingerprint == fingerprint then
    return
  end
  local dict = store()
  local now = ngx_now()
  local id = workers()
  local fresh, by_key = {}, {}
  for i = 1, #peers do
    local p = peers[i]
    -- every field set here, none added later: every peer table has the
    -- same layout, which LuaJIT's compiled code expects (a field added
    -- to some peers only makes their picks leave it, at a cost)
    local peer = {
      address = p.address, port = p.port, key = p.key,
      prefix = prefix_of(backend.name, p.key),
      -- this worker's EWMA and the time of its last measurement (0: never)
      own = 0, own_at = 0,
      -- the other workers' highest entry, decayed to read, when it was read
      other = 0, read = -REFRESH,
      -- when own was last published, what was published, whether a
      -- measurement since waits for publication
      published = -REFRESH, published_ewma = 0, dirty = false,
    }
    local old = self.by_key[p.key]
    if old then
      peer.own, peer.own_at = old.own, old.own_at
      peer.other, peer.read = old.other, old.read
      peer.published, peer.published_ewma, peer.dirty = old.published, old.published_ewma, old.dirty
    else
      -- what this worker published before this balancer was made (or the
      -- worker of its number before a reload)
      local ewma, at = dict:get(peer.prefix .. id)
      if ewma then
        peer.own, peer.own_at = ewma, now - age(now, at)
      end
    end
    fresh[i] = peer
    by_key[p.key] = peer
  end
  local total, count_kept = 0, 0
  for _, old in ipairs(self.peers) do
    local kept = by_key[old.key]
    if kept then
      local s = score(dict, kept, now)
      if kept.own_at > 0 or kept.other > 0 then
        total, count_kept = total + s, count_kept + 1
      end
    else
      dict:delete(old.prefix .. id)
    end
  end
  if count_kept > 0 and self.fingerprint ~= nil then
    local start = total / count_kept
    for _, peer in ipairs(fresh) do
      if not self.by_key[peer.key] and peer.own_at == 0 then
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

-- measure blends rtt, measured now, into this worker's EWMA of peer, and
-- publishes the EWMA when it rose above what was last published or when
-- that is REFRESH old.
local function measure(peer, rtt, now)
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
  local published = peer.published
  if now - published >= REFRESH or now < published or ewma > peer.published_ewma then
    publish(store(), peer, now)
  else
    peer.dirty = true
  end
end

-- after_balance runs in the log phase: it blends the response time of the
-- last try into this worker's EWMA of the peer that served it (the last
-- one balance() picked, while it is still one of this balancer's peers: a
-- sync meanwhile may have made new peer tables).
function _M:after_balance(picked)
  local peer = picked and self.by_key[picked.key]
  if not peer then
    return
  end
  local rtt = util.last_seconds(ngx.var.upstream_response_time)
  if not rtt then
    return
  end
  measure(peer, rtt, ngx_now())
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
