-- balancer_ewma: the "ewma" load-balance implementation: a peak EWMA of
-- each endpoint's upstream response time, and a pick of two: every request
-- draws two distinct endpoints at random and takes the one with the lower
-- score (as ingress-nginx, after Finagle's PeakEwma).
--
-- The score of an endpoint is its EWMA decayed towards 0 since it was last
-- measured (time constant DECAY_TIME); a measurement higher than the score
-- replaces it at once (the peak), a lower one is blended in. Scores live in
-- the shared dict balancer_ewma so that both workers see every measurement
-- (a per-worker table, with a log line, when the config has no such dict):
-- one entry per endpoint, the score as its value and the time it was
-- measured as its flags (milliseconds, modulo 2^32), so that a
-- measurement reads one entry and writes one. Two workers updating one
-- endpoint at the same instant may lose one sample; the pair (score, time)
-- is written by one worker, never torn. A pick reads the scores of its
-- two candidates through a per-worker copy of each entry (REFRESH): what
-- this worker measures it sees at once, what the other worker measures
-- within REFRESH seconds; a measurement blends into the dict's entry (a
-- peak the other worker measured is never blended away by a stale copy).
-- Two shared-dict reads per request are spared, most of what ewma cost
-- over round_robin.
--
-- Measurements come from balancer.log() (log_by_lua) through after_balance:
-- the last $upstream_response_time, which nginx counts from the start of
-- the connection, for the endpoint the last balance() picked (balancer.lua
-- keeps it for the log phase under the request's reqctx.key()). An endpoint that joins an existing set starts at the
-- average score of the others (a slow start), as in ingress-nginx. A retry
-- avoids the endpoints this request already tried. See
-- balancer_round_robin.lua for the interface.
local util = require("util")

local ngx = ngx
local ngx_now = ngx.now
local ngx_log = ngx.log
local ngx_WARN = ngx.WARN
local setmetatable = setmetatable
local ipairs = ipairs
local tonumber = tonumber
local math_exp = math.exp
local math_floor = math.floor
local math_random = math.random

local DECAY_TIME = 10  -- seconds
local EXPIRE = 600     -- seconds without a measurement before a score is dropped
local DICT = "balancer_ewma"
-- seconds a pick trusts its worker's copy of an endpoint's entry (ngx.now()
-- moves with the event loop: a burst of requests reads the dict once)
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

-- entry returns peer's score and the stamp of its measurement (nil when
-- never measured), from the worker's copy of its dict entry when that is
-- at most REFRESH old.
local function entry(dict, peer, now)
  local read = peer.read
  if read and now - read < REFRESH and now >= read then
    return peer.ewma, peer.at
  end
  local ewma, at = dict:get(peer.ewma_key)
  peer.ewma, peer.at, peer.read = ewma, at, now
  return ewma, at
end

-- score returns the decayed EWMA of peer now (0 when never measured).
local function score(dict, peer, now)
  local ewma, at = entry(dict, peer, now)
  if not ewma then
    return 0
  end
  return decayed(ewma, at, now)
end

-- record writes peer's new score (blended into the entry just read from
-- the dict) into the dict and into the worker's copy, which is then as
-- fresh as a read.
local function record(dict, peer, ewma, now)
  local at = stamp(now)
  dict:set(peer.ewma_key, ewma, EXPIRE, at)
  peer.ewma, peer.at, peer.read = ewma, at, now
end

function _M.new(backend, peers, fingerprint)
  local o = setmetatable({ by_key = {}, peers = {} }, _M)
  o:sync(backend, peers, fingerprint)
  return o
end

-- sync keeps the scores when the peer set is unchanged; otherwise it drops
-- the scores of the endpoints that left and gives those that joined the
-- average score of the others (unless another worker did it first).
function _M:sync(backend, peers, fingerprint)
  self.name = backend.name
  if self.fingerprint == fingerprint then
    return
  end
  local dict = store()
  local prefix = backend.name .. " "
  local fresh, by_key = {}, {}
  for i = 1, #peers do
    local p = peers[i]
    local peer = { address = p.address, port = p.port, key = p.key, ewma_key = "e " .. prefix .. p.key }
    fresh[i] = peer
    by_key[p.key] = peer
  end
  local now = ngx_now()
  local total, count = 0, 0
  for _, old in ipairs(self.peers) do
    if by_key[old.key] then
      local ewma = dict:get(old.ewma_key)
      if ewma then
        total, count = total + score(dict, old, now), count + 1
      end
    else
      dict:delete(old.ewma_key)
    end
  end
  if count > 0 and self.fingerprint ~= nil then
    local start = total / count
    for _, peer in ipairs(fresh) do
      if not self.by_key[peer.key] then
        dict:safe_add(peer.ewma_key, start, EXPIRE, stamp(now))
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

-- after_balance runs in the log phase: it blends the response time of the
-- last try into the score of the peer that served it (the last one
-- balance() picked, while it is still one of this balancer's peers: a
-- sync meanwhile may have made new peer tables).
function _M:after_balance(picked)
  local peer = picked and self.by_key[picked.key]
  if not peer then
    return
  end
  local times = ngx.var.upstream_response_time
  local rtt = tonumber(times) or tonumber(util.last_value(times))
  if not rtt then
    return
  end
  local dict = store()
  local now = ngx_now()
  -- the dict's entry, not the copy: a peak the other worker measured
  -- within REFRESH stays in the blend
  local ewma, at = dict:get(peer.ewma_key)
  if ewma then
    local td = age(now, at)
    local w = td > 0 and math_exp(-td / DECAY_TIME) or 1
    if rtt < ewma * w then
      ewma = ewma * w + rtt * (1 - w)
    else
      ewma = rtt
    end
  else
    ewma = rtt
  end
  record(dict, peer, ewma, now)
end

return _M
