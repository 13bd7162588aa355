-- balancer: routes each proxied request to an endpoint of its backend.
--
-- Backends live as JSON in the shared dict configuration_data, versioned by
-- store.lua: the whole array of the last POST (the base) and the backends
-- changed since (delta.lua: what a PATCH sent). Each worker follows the
-- delta's version and decodes again only what moved (the base, which it
-- indexes without decoding, only when the delta names another base):
-- at init_worker (so a worker forked by a reload serves the current backends
-- from its first request: shared dicts survive a reload), every second from
-- a timer, and at the start of every proxied request (rewrite), so a push is
-- live at once on all workers.
--
-- One implementation per file (balancer_<name>.lua), chosen per backend as
-- ingress-nginx chooses: cookie affinity -> sticky; else upstream-hash-by
-- (present, even empty) -> chash, or chashsubset with
-- upstream-hash-by-subset; else load-balance (round_robin, ewma); anything
-- else -> round_robin. Instances are kept across syncs while their
-- implementation is the same, and keep their state (round-robin position,
-- hash ring, scores) while their peer set is unchanged.
--
-- Canary: rewrite() asks canary.lua whether the request goes to one of the
-- backend's alternativeBackends (by their trafficShapingPolicy).
local cjson = require("cjson.safe")
local ngx_balancer = require("ngx.balancer")
local util = require("util")
local canary = require("canary")
local configuration = require("configuration")
local delta = require("delta")
local reqctx = require("reqctx")
local get_request = require("resty.core.base").get_request
local ffi = require("ffi")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_WARN = ngx.WARN
local ngx_INFO = ngx.INFO
local ipairs = ipairs
local pairs = pairs
local type = type
local tostring = tostring
local getmetatable = getmetatable
local table_sort = table.sort
local table_concat = table.concat
local string_sub = string.sub

local SYNC_INTERVAL = 1

local IMPLEMENTATIONS = {
  round_robin = require("balancer_round_robin"),
  ewma = require("balancer_ewma"),
  chash = require("balancer_chash"),
  chashsubset = require("balancer_chashsubset"),
  sticky = require("balancer_sticky"),
}
local DEFAULT = IMPLEMENTATIONS.round_robin
-- Only these may be named by load-balance: the others follow from the
-- affinity and hash settings.
local LOAD_BALANCE = { round_robin = true, ewma = true }

local _M = {}

-- A sync only indexes the base's JSON by name (util.array_names: no
-- backend is decoded) and decodes the delta; a backend is decoded, and its
-- balancer built (or its previous instance synced), on the first request
-- that needs it under the new version. A push of 100,000 backends so
-- costs each worker a scan of the text (about 0.2 s for 57 MB) and the
-- text itself in memory, not 100,000 decoded backends (about 180 MiB) nor
-- 100,000 constructions.
-- empty_base is the index of no backends (see index_base).
local function empty_base()
  return { text = "[]", starts = {}, ends = {}, index = {} }
end

local base = empty_base() -- the index of the base synced_base (index_base)
local changed = {}      -- backend name -> decoded backend of the delta, false: deleted
local built = {}        -- backend name -> entry built for synced_version
local instances = {}    -- backend name -> last instance built (any version)
local synced_base       -- the store version of base; nil before any
local synced_version    -- the version of the delta that serves; nil before any

-- index_base returns the base's text, where each entry starts and ends in
-- it, and each name's entry (the first of a name, as validate.lua has it);
-- nil when text is not a JSON array (configuration.lua stores only valid
-- ones).
local function index_base(text)
  local starts, ends, names = util.array_names(text)
  if not starts then
    return nil
  end
  local index = {}
  for i = 1, #names do
    local name = names[i]
    if name and index[name] == nil then
      index[name] = i
    end
  end
  return { text = text, starts = starts, ends = ends, index = index }
end

-- has_backend tells whether a backend called name serves.
local function has_backend(name)
  local b = changed[name]
  if b ~= nil then
    return b ~= false
  end
  return base.index[name] ~= nil
end

-- backend_named returns the decoded backend called name that serves (a
-- base entry is decoded on each call: entry() keeps what it builds).
local function backend_named(name)
  local b = changed[name]
  if b ~= nil then
    return b or nil
  end
  local i = base.index[name]
  if not i then
    return nil
  end
  b = cjson.decode(string_sub(base.text, base.starts[i], base.ends[i]))
  if type(b) ~= "table" then
    return nil
  end
  return b
end

-- implementation returns the implementation for backend.
local function implementation(backend)
  local affinity = backend.sessionAffinityConfig
  if type(affinity) == "table" and affinity.name == "cookie" then
    return IMPLEMENTATIONS.sticky
  end
  local hash = backend.upstreamHashByConfig
  if type(hash) == "table" and type(hash["upstream-hash-by"]) == "string" then
    if hash["upstream-hash-by-subset"] == true then
      return IMPLEMENTATIONS.chashsubset
    end
    return IMPLEMENTATIONS.chash
  end
  local lb = backend["load-balance"]
  if LOAD_BALANCE[lb] then
    return IMPLEMENTATIONS[lb]
  end
  if lb ~= nil and lb ~= "" and lb ~= cjson.null then
    ngx_log(ngx_WARN, "balancer: backend ", backend.name, ": load-balance ",
      tostring(lb), " is not implemented, using ", DEFAULT.name)
  end
  return DEFAULT
end

-- peer_addresses memoizes util.peer_address (false: not an IP literal)
-- for the backends of synced_version: backends of one Service share their
-- addresses, and an IPv6 check is not cheap.
local peer_addresses = {}

local function peer_address(address)
  local peer = peer_addresses[address]
  if peer == nil then
    peer = util.peer_address(address) or false
    if type(address) == "string" then
      peer_addresses[address] = peer
    end
  end
  return peer or nil
end

-- peers returns the endpoints of backend usable by set_current_peer and a
-- fingerprint of that set (sorted, so that order alone changes nothing).
local function peers(backend)
  local list, keys = {}, {}
  local endpoints = backend.endpoints
  if type(endpoints) ~= "table" then
    return list, ""
  end
  for _, ep in ipairs(endpoints) do
    local address = peer_address(ep.address)
    local port = util.port(ep.port)
    if address and port then
      local key = address .. ":" .. port
      list[#list + 1] = { address = address, port = port, key = key }
      keys[#keys + 1] = key
    else
      ngx_log(ngx_INFO, "balancer: backend ", backend.name, ": skipping endpoint ",
        tostring(ep.address), ":", tostring(ep.port), " (not an IP address and port)")
    end
  end
  table_sort(keys)
  return list, table_concat(keys, ",")
end

-- entry returns {balancer, alternatives, policy} for the backend called
-- name under synced_version, building it on first use; nil when there is
-- no such backend.
local function entry(name)
  local e = built[name]
  if e then
    return e
  end
  local backend = backend_named(name)
  if not backend then
    return nil
  end
  local impl = implementation(backend)
  local list, fingerprint = peers(backend)
  local b = instances[name]
  if b and getmetatable(b) == impl then
    b:sync(backend, list, fingerprint)
  else
    b = impl.new(backend, list, fingerprint)
    instances[name] = b
  end
  local alts = backend.alternativeBackends
  if type(alts) ~= "table" or #alts == 0 then
    alts = nil
  end
  e = { balancer = b, alternatives = alts, policy = canary.compile(backend.trafficShapingPolicy) }
  built[name] = e
  return e
end

-- lookup is what canary.lua uses to find the balancers and policies of the
-- alternatives.
local function lookup(name)
  local e = entry(name)
  if e then
    return e.balancer, e.policy
  end
  return nil
end

-- decode_base indexes the whole array of version at (index_base); nil
-- when it is being replaced (read it on a later call).
local function decode_base(at)
  local raw, version = configuration.backends_data()
  if not raw or version ~= at then
    return nil -- replaced in place right now, or a newer base whose delta is not out yet
  end
  local indexed = index_base(raw)
  if not indexed then
    -- configuration.lua stored only valid JSON: keep what serves.
    ngx_log(ngx_ERR, "balancer: cannot index backends version ", tostring(at))
    return base
  end
  return indexed
end

-- forget drops the built entries of the names of a delta (the backends it
-- sets and deletes), which the next delta may change.
local function forget(set)
  for name in pairs(set) do
    built[name] = nil
  end
end

-- sync follows the stored backends; true once this worker serves the
-- version stored (false: read again on a later call).
local function sync()
  -- Compare the version alone first: one shared-dict read.
  local version = configuration.backends_delta_version()
  if version == synced_version then
    return true
  end
  local stored, at = configuration.backends_delta_data()
  if not stored then
    if at ~= nil then
      return false -- being replaced right now: the next request reads it
    end
    base, changed, built, instances, synced_base, synced_version = empty_base(), {}, {}, {}, nil, nil
    peer_addresses = {}
    return true
  end
  local base_version, deleted, array = delta.split(stored)
  local set, gone
  if base_version then
    set, gone = delta.decode(deleted, array)
  end
  if not set then
    ngx_log(ngx_ERR, "balancer: cannot decode backends delta version ", tostring(at))
    synced_version = at
    return true
  end
  -- The names whose instance may be gone now: all of them on a new base,
  -- else those the previous delta named (they may fall back to a base
  -- without them) and those this one deletes.
  local maybe_gone
  if base_version ~= synced_base then
    local indexed = decode_base(base_version)
    if not indexed then
      return false
    end
    base, built, synced_base = indexed, {}, base_version
    peer_addresses = {}
    maybe_gone = instances
  else
    forget(changed)
    forget(set)
    forget(gone)
    maybe_gone = changed
  end
  changed = set
  for name in pairs(gone) do
    changed[name] = false
  end
  -- Instances of backends that are gone are dropped; the others wait for
  -- their next request to be synced.
  for _, names in ipairs({ maybe_gone, gone }) do
    for name in pairs(names) do
      if instances[name] and not has_backend(name) then
        instances[name] = nil
      end
    end
  end
  synced_version = at
  return true
end

-- synced_generation is the configuration generation (configuration.lua)
-- at which sync() last found this worker up to date: while it has not
-- moved, nothing is read.
local synced_generation

-- sync_at syncs unless generation gen is the one synced already; gen is
-- read before the sync (a change stored meanwhile moves it again).
local function sync_at(gen)
  if gen == nil then
    sync()
    return
  end
  if gen == synced_generation then
    return
  end
  if sync() then
    synced_generation = gen
  end
end

local function sync_timer(premature)
  if premature then
    return
  end
  sync()
end

-- init_worker runs in init_worker_by_lua.
function _M.init_worker()
  math.randomseed(ngx.now() * 1000 + ngx.worker.pid())
  sync()
  local ok, err = ngx.timer.every(SYNC_INTERVAL, sync_timer)
  if not ok then
    ngx_log(ngx_ERR, "balancer: cannot start the sync timer: ", err)
  end
end

-- The request that rewrite() ran for last, and the balancer it chose:
-- balance() of that request takes it from here, without ngx.ctx nor
-- $proxy_upstream_name. Every request that balance() runs for ran
-- rewrite() first, so a request found here is the one that rewrite() ran
-- for, not another that had the same address before (a request's
-- address can only be one that no living request has).
local last_request, last_balancer

-- What balance() leaves to log() for a balancer that learns from the
-- answer (after_balance: ewma), under the request's reqctx.key(): the
-- balancer, and the peer of the last try. No ngx.ctx is made for it. A
-- request's log phase always runs; should one not, a later request with
-- the same address replaces the entries in its balance(), or its log()
-- takes them (one stray measurement of an endpoint, then gone).
local learning_balancer, learning_peer, learning_start = {}, {}, {}

-- current_msec returns nginx's own millisecond clock, ngx_current_msec
-- (the nginx binary exports it for its modules): an upstream try's
-- response time ($upstream_response_time) is its value when the try
-- ended minus its value when balance() ran for the try, which nginx sets
-- as the try's start right before. nil when the binary does not export it.
local current_msec
pcall(ffi.cdef, "extern volatile uintptr_t ngx_current_msec;")
if pcall(function() return ffi.C.ngx_current_msec end) then
  local C = ffi.C
  current_msec = function()
    return tonumber(C.ngx_current_msec)
  end
end
_M.current_msec = current_msec -- for TestEWMASkipsWhatCannotChangeIt

-- plain is the balancer of the backend named by $proxy_upstream_name,
-- for a request that rewrite() gave none (see rewrite()). rewrite() synced
-- this worker for the request already: every location that proxies to
-- upstream_balancer runs it (or router.rewrite(), which calls it).
local function plain()
  local e = entry(ngx.var.proxy_upstream_name)
  return e and e.balancer
end

-- rewrite runs in rewrite_by_lua of every proxying location: 503 when the
-- backend named by $proxy_upstream_name (or name, which the router passes
-- to spare a variable lookup) is unknown or has no endpoints; else it
-- picks the primary backend or one of its canaries for the request.
--
-- ctx is the request's ngx.ctx when the caller has one (each lookup of
-- ngx.ctx is a call into nginx, and the first makes the table). Without
-- one, a request to the primary backend of a balancer that keeps nothing
-- per request gets none: balance() finds that backend again by
-- $proxy_upstream_name. rewrite() returns the ctx it made (a canary, or a
-- balancer that keeps a request's state), for the caller to add to, and
-- the balancer chosen.
-- gen is the configuration generation the caller read for this request
-- (nil: read what serves).
function _M.rewrite(name, ctx, gen)
  sync_at(gen)
  name = name or ngx.var.proxy_upstream_name
  local e = name and entry(name)
  if not e then
    ngx_log(ngx_WARN, "balancer: unknown backend ", tostring(name))
    return ngx.exit(ngx.HTTP_SERVICE_UNAVAILABLE)
  end
  local b = e.balancer
  if b:size() == 0 then
    ngx_log(ngx_INFO, "balancer: backend ", name, " has no endpoints")
    return ngx.exit(ngx.HTTP_SERVICE_UNAVAILABLE)
  end
  local made
  if e.alternatives then
    b = canary.choose(b, e.alternatives, lookup)
    if b ~= e.balancer then
      if not ctx then
        ctx = ngx.ctx
        made = ctx
      end
      -- the canary label of the request metrics (monitor.lua), as
      -- ingress-nginx's $proxy_alternative_upstream_name
      ctx.canary = b.name
    end
  end
  if not ctx and b.keeps_request then
    ctx = ngx.ctx
    made = ctx
  end
  if ctx then
    ctx.balancer = b
  end
  last_request, last_balancer = get_request(), b
  return made, b
end

-- balance runs in balancer_by_lua of the upstream upstream_balancer.
function _M.balance()
  local ctx = reqctx.existing()
  local b = ctx and ctx.balancer
  local tries
  if b then
    tries = (ctx.balancer_tries or 0) + 1
    ctx.balancer_tries = tries
  else
    -- no rewrite() kept one: the primary backend, which rewrite() left
    -- in last_balancer unless another request's came after it
    if get_request() == last_request then
      b = last_balancer
    else
      b = plain()
    end
    if not b then
      ngx_log(ngx_ERR, "balancer: no balancer for backend ", tostring(ngx.var.proxy_upstream_name))
      return ngx.exit(ngx.ERROR)
    end
    local retry = ngx_balancer.get_last_failure() ~= nil
    if ctx or retry or b.keeps_request then
      -- from here on the request keeps its balancer and counts its tries
      -- (a first try without ngx.ctx kept none: a retry now is the second)
      ctx = ctx or ngx.ctx
      ctx.balancer = b
      tries = retry and 2 or 1
      ctx.balancer_tries = tries
    else
      tries = 1
    end
  end
  local address, port, picked = b:balance(tries, ctx)
  if not address then
    ngx_log(ngx_ERR, "balancer: backend ", tostring(b.name), " has no endpoints")
    return ngx.exit(ngx.ERROR)
  end
  if b.after_balance then
    -- for log(): the balancer that learns from the answer, and the peer
    -- this try went to (the last try's stays)
    local key = reqctx.key()
    learning_balancer[key], learning_peer[key] = b, picked
    learning_start[key] = current_msec and current_msec()
  end
  -- upstream_balancer has one (placeholder) server, so nginx allows no
  -- retry by itself: allow one more try per call, each to the next peer, at
  -- most one try per peer; proxy_next_upstream(_tries) still decide.
  if tries < b:size() then
    ngx_balancer.set_more_tries(1) -- "reduced tries due to limit" is no error
  end
  local timeouts = ctx and ctx.balancer_timeouts -- a route's own (router.lua)
  if timeouts then
    local tok, terr = ngx_balancer.set_timeouts(timeouts[1], timeouts[2], timeouts[3])
    if not tok then
      ngx_log(ngx_ERR, "balancer: set_timeouts: ", terr)
    end
  end
  local ok, err = ngx_balancer.set_current_peer(address, port)
  if not ok then
    ngx_log(ngx_ERR, "balancer: set_current_peer ", address, ":", port, ": ", err)
    return ngx.exit(ngx.ERROR)
  end
end

-- log runs in log_by_lua: implementations that learn from the answer
-- (ewma) do so here, for the peer that balance() left under the request's
-- key, with the milliseconds since that try started: no less than its
-- response time (nil without current_msec).
function _M.log()
  local key = reqctx.key()
  local b = key and learning_balancer[key]
  if not b then
    return
  end
  local picked, start = learning_peer[key], learning_start[key]
  learning_balancer[key], learning_peer[key], learning_start[key] = nil, nil, nil
  b:after_balance(picked, start and current_msec() - start)
end

return _M
