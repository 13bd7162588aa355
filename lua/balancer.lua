-- balancer: routes each proxied request to an endpoint of its backend.
--
-- Backends live as raw JSON in the shared dict configuration_data ("backends")
-- with a version counter ("backends_version") that configuration.lua bumps on
-- every accepted POST. Each worker decodes them again only when the version
-- changed: at init_worker, every second from a timer, and at the start of
-- every proxied request (rewrite), so a push is live at once on all workers.
--
-- One implementation per file (balancer_<name>.lua), chosen by
-- backend["load-balance"]; instances are kept across syncs so that their state
-- (the round-robin position, for one) survives an unrelated change.
local cjson = require("cjson.safe")
local ngx_balancer = require("ngx.balancer")
local util = require("util")
local round_robin = require("balancer_round_robin")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_WARN = ngx.WARN
local ngx_INFO = ngx.INFO
local ipairs = ipairs
local type = type
local tostring = tostring
local getmetatable = getmetatable
local table_sort = table.sort
local table_concat = table.concat

local SYNC_INTERVAL = 1

-- IMPLEMENTATIONS maps backend["load-balance"] to its implementation.
-- Values not listed (ewma, chash, sticky … until they exist) use DEFAULT.
local IMPLEMENTATIONS = {
  round_robin = round_robin,
}
local DEFAULT = round_robin

local _M = {}

local balancers = {}    -- backend name -> instance
local synced_version    -- the backends_version of balancers; nil before any

local function implementation(backend)
  local lb = backend["load-balance"]
  local impl = IMPLEMENTATIONS[lb]
  if impl then
    return impl
  end
  if lb ~= nil and lb ~= "" then
    ngx_log(ngx_WARN, "balancer: backend ", backend.name, ": load-balance ",
      tostring(lb), " is not implemented, using ", DEFAULT.name)
  end
  return DEFAULT
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
    local address = util.peer_address(ep.address)
    local port = util.port(ep.port)
    if address and port then
      list[#list + 1] = { address = address, port = port }
      keys[#keys + 1] = address .. " " .. port
    else
      ngx_log(ngx_WARN, "balancer: backend ", backend.name, ": skipping endpoint ",
        tostring(ep.address), ":", tostring(ep.port), " (not an IP address and port)")
    end
  end
  table_sort(keys)
  return list, table_concat(keys, ",")
end

local function sync()
  local dict = ngx.shared.configuration_data
  -- Read the version before the data: a push in between makes the next
  -- check sync again, never the other way round.
  local version = dict:get("backends_version")
  if version == synced_version then
    return
  end
  local raw = dict:get("backends")
  local backends = {}
  if raw then
    local decoded, err = cjson.decode(raw)
    if type(decoded) ~= "table" then
      -- configuration.lua stored only valid JSON: keep what serves.
      ngx_log(ngx_ERR, "balancer: cannot decode backends version ", tostring(version), ": ", tostring(err))
      synced_version = version
      return
    end
    backends = decoded
  end
  local fresh = {}
  for _, backend in ipairs(backends) do
    local name = backend.name
    local impl = implementation(backend)
    local list, fingerprint = peers(backend)
    local old = balancers[name]
    if old and getmetatable(old) == impl then
      old:sync(backend, list, fingerprint)
      fresh[name] = old
    else
      fresh[name] = impl.new(backend, list, fingerprint)
    end
  end
  balancers = fresh
  synced_version = version
end

local function sync_timer(premature)
  if premature then
    return
  end
  sync()
end

-- init_worker runs in init_worker_by_lua.
function _M.init_worker()
  sync()
  local ok, err = ngx.timer.every(SYNC_INTERVAL, sync_timer)
  if not ok then
    ngx_log(ngx_ERR, "balancer: cannot start the sync timer: ", err)
  end
end

-- rewrite runs in rewrite_by_lua of every proxying location: 503 when the
-- backend named by $proxy_upstream_name is unknown or has no endpoints.
function _M.rewrite()
  sync()
  local name = ngx.var.proxy_upstream_name
  local b = name and balancers[name]
  if not b then
    ngx_log(ngx_WARN, "balancer: unknown backend ", tostring(name))
    return ngx.exit(ngx.HTTP_SERVICE_UNAVAILABLE)
  end
  if b:size() == 0 then
    ngx_log(ngx_INFO, "balancer: backend ", name, " has no endpoints")
    return ngx.exit(ngx.HTTP_SERVICE_UNAVAILABLE)
  end
  ngx.ctx.balancer = b
end

-- balance runs in balancer_by_lua of the upstream upstream_balancer.
function _M.balance()
  local b = ngx.ctx.balancer
  if not b then -- a location without balancer.rewrite()
    sync()
    b = balancers[ngx.var.proxy_upstream_name]
  end
  if not b then
    ngx_log(ngx_ERR, "balancer: no balancer for backend ", tostring(ngx.var.proxy_upstream_name))
    return ngx.exit(ngx.ERROR)
  end
  local address, port = b:balance()
  if not address then
    ngx_log(ngx_ERR, "balancer: backend ", tostring(b.name), " has no endpoints")
    return ngx.exit(ngx.ERROR)
  end
  -- upstream_balancer has one (placeholder) server, so nginx allows no
  -- retry by itself: allow one more try per call, each to the next peer, at
  -- most one try per peer; proxy_next_upstream(_tries) still decide.
  local ctx = ngx.ctx
  local tries = (ctx.balancer_tries or 0) + 1
  ctx.balancer_tries = tries
  if tries < b:size() then
    ngx_balancer.set_more_tries(1) -- "reduced tries due to limit" is no error
  end
  local ok, err = ngx_balancer.set_current_peer(address, port)
  if not ok then
    ngx_log(ngx_ERR, "balancer: set_current_peer ", address, ":", port, ": ", err)
    return ngx.exit(ngx.ERROR)
  end
end

return _M
