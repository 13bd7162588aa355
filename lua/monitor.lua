-- monitor: ingress-nginx's per-request metrics, aggregated without blocking
-- the request.
--
-- log_by_lua calls monitor.call(): it adds the request to a table of its
-- worker (a count and, per histogram, the sum and the bucket of the value),
-- keyed by the request's labels. A timer of each worker (every second), or
-- the log phase itself once the table holds too many label sets, adds the
-- table to the shared dict monitor_data with incr and empties it. The
-- status server's GET /monitor/requests (monitor.serve()) answers the
-- dict's totals as JSON; the controller exports them on /metrics
-- (pkg/controller/metrics_requests.go).
--
-- What a request is measured by comes in one nginx variable,
-- $kubectl_ingress_monitor, that nginx.conf composes in C (nginxconf's
-- monitorRecord): six numbers, each followed by "|", then the labels
-- separated by spaces: host, status, method, path, namespace, ingress,
-- service. One variable read per request instead of a dozen keeps the
-- log phase cheap. With the Lua router, host is its host entry and path,
-- namespace, ingress and service come from the route's monitor_labels
-- once it chose one (from ngx.ctx, else from what router.rewrite() left
-- under the request's key: reqctx): it writes their variables only where
-- something else reads them. Labels are bounded by the config: namespace, ingress,
-- service and path are per-location variables the writer sets from the
-- model ($namespace, $ingress_name, $service_name, $location_path); host
-- is the server's name ($server_name: "_" for the catch-all server of
-- unknown hosts), or the Lua router's host entry; method is one of the
-- HTTP methods or "OTHER"; status is nginx's; canary is the canary
-- backend the balancer chose.
local cjson = require("cjson.safe")
local reqctx = require("reqctx")

local _M = {}

local dict = ngx.shared.monitor_data
local timer_every = ngx.timer.every
local ngx_log, ngx_ERR, ngx_WARN = ngx.log, ngx.ERR, ngx.WARN
local tonumber, pairs, ipairs = tonumber, pairs, ipairs
local concat = table.concat
local str_sub, str_find = string.sub, string.find

local SEP = " "
local FLUSH_INTERVAL = 1
local MAX_PENDING = 1024

-- histograms: { {name=, vi=, bounds={…}}, … } set by init from
-- nginx.conf; vi indexes the numbers of the record (FIELDS).
local histograms = {}
local pending, npending = {}, 0

-- The numbers of $kubectl_ingress_monitor, in its order.
local FIELDS = {
  "request_time", "request_length", "bytes_sent",
  "upstream_connect_time", "upstream_header_time", "upstream_response_time",
}

-- The number each histogram observes.
local VARS = {
  connect_duration_seconds = "upstream_connect_time",
  header_duration_seconds = "upstream_header_time",
  response_duration_seconds = "upstream_response_time",
  request_duration_seconds = "request_time",
  request_size = "request_length",
  response_size = "bytes_sent",
  bytes_sent = "bytes_sent",
}

-- init takes the buckets of each histogram: {name = {bound, …}, …}.
function _M.init(buckets)
  histograms = {}
  local index = {}
  for i, f in ipairs(FIELDS) do
    index[f] = i
  end
  for name, bounds in pairs(buckets) do
    if VARS[name] then
      histograms[#histograms + 1] = { name = name, vi = index[VARS[name]], bounds = bounds }
    end
  end
  table.sort(histograms, function(a, b) return a.name < b.name end)
end

-- value reads a number from an nginx variable; upstream times of several
-- tries ("0.001, 0.002" or with " : ") add up; "-" or nothing is nil.
local function value(s)
  if not s or s == "" or s == "-" then
    return nil
  end
  local n = tonumber(s)
  if n then
    return n
  end
  local sum, any = 0, false
  for part in s:gmatch("[%d%.]+") do
    local x = tonumber(part)
    if x then
      sum, any = sum + x, true
    end
  end
  return any and sum or nil
end

local function bucket(bounds, v)
  for i = 1, #bounds do
    if v <= bounds[i] then
      return i
    end
  end
  return #bounds + 1
end

local function flush()
  if npending == 0 then
    return
  end
  local batch = pending
  pending, npending = {}, 0
  for key, e in pairs(batch) do
    local _, err = dict:incr(key .. SEP .. "n", e.n, 0)
    if err then
      ngx_log(ngx_WARN, "monitor: ", err)
      return
    end
    for k, h in pairs(e.h) do
      local name = histograms[k].name
      dict:incr(key .. SEP .. name .. SEP .. "s", h.s, 0)
      for i, c in pairs(h.c) do
        dict:incr(key .. SEP .. name .. SEP .. i, c, 0)
      end
    end
  end
end

local fields = {}

-- call runs in log_by_lua. It is written for LuaJIT's compiler: plain
-- string.find and string.sub, no pattern matching on the common path.
function _M.call()
  local record = ngx.var.kubectl_ingress_monitor
  if not record then
    return
  end
  local p = 1
  for i = 1, 6 do
    local q = str_find(record, "|", p, true)
    if not q then
      return
    end
    fields[i] = str_sub(record, p, q - 1)
    p = q + 1
  end
  local labels = str_sub(record, p)
  -- the Lua router's host entry and route: in ngx.ctx when the request has
  -- one, else where router.rewrite() left them
  local ctx = reqctx.existing()
  local host, route_labels, canary
  if ctx and ctx.route_host then
    host, route_labels, canary = ctx.route_host, ctx.monitor_labels, ctx.canary
  else
    local key = reqctx.key()
    host = key and reqctx.host_of[key]
    local route = host and reqctx.route_of[key]
    route_labels = route and route.monitor_labels
    canary = ctx and ctx.canary
  end
  if host then
    -- the Lua router's host entry (router.lua) for the server's "_"
    local after_host = str_find(labels, SEP, 1, true) or #labels + 1
    local after_method = route_labels and after_host <= #labels and str_find(labels, SEP, after_host + 1, true)
    after_method = after_method and str_find(labels, SEP, after_method + 1, true)
    if after_method then
      -- and its route's path, namespace, Ingress and Service, from the
      -- moment the router chose the route (it writes their variables only
      -- where something else reads them)
      labels = host .. str_sub(labels, after_host, after_method) .. route_labels
    else
      labels = host .. str_sub(labels, after_host)
    end
  end
  local key = labels .. SEP .. (canary or "")
  local e = pending[key]
  if not e then
    e = { n = 0, h = {} }
    pending[key] = e
    npending = npending + 1
  end
  e.n = e.n + 1
  local hs = e.h
  for k = 1, #histograms do
    local hist = histograms[k]
    local v = value(fields[hist.vi])
    if v then
      local h = hs[k]
      if not h then
        h = { s = 0, c = {} }
        hs[k] = h
      end
      h.s = h.s + v
      local i = bucket(hist.bounds, v)
      h.c[i] = (h.c[i] or 0) + 1
    end
  end
  if npending >= MAX_PENDING then
    flush()
  end
end

function _M.init_worker()
  local ok, err = timer_every(FLUSH_INTERVAL, flush)
  if not ok then
    ngx_log(ngx_ERR, "monitor: cannot start the flush timer: ", err)
  end
end

local LABELS = { "host", "status", "method", "path", "namespace", "ingress", "service", "canary" }

local function split(s)
  local parts = {}
  for p in (s .. SEP):gmatch("(.-)" .. SEP) do
    parts[#parts + 1] = p
  end
  return parts
end

-- serve answers GET /monitor/requests: every label set with its totals,
-- [{host=, status=, …, requests=, obs={name={sum=, counts={…}}}}].
function _M.serve()
  flush()
  local series, order = {}, {}
  for _, k in ipairs(dict:get_keys(0)) do
    local v = dict:get(k)
    local parts = split(k)
    local n = #parts
    if v and n >= #LABELS + 1 then
      local key = concat(parts, SEP, 1, #LABELS)
      local s = series[key]
      if not s then
        s = { requests = 0, obs = {} }
        for i, l in ipairs(LABELS) do
          s[l] = parts[i]
        end
        series[key] = s
        order[#order + 1] = key
      end
      if n == #LABELS + 1 then
        s.requests = v
      elseif n == #LABELS + 2 then
        local name, field = parts[#LABELS + 1], parts[#LABELS + 2]
        local o = s.obs[name]
        if not o then
          o = { sum = 0, counts = {} }
          s.obs[name] = o
        end
        if field == "s" then
          o.sum = v
        else
          o.counts[field] = v
        end
      end
    end
  end
  local out = {}
  for _, key in ipairs(order) do
    out[#out + 1] = series[key]
  end
  ngx.header["Content-Type"] = "application/json"
  if #out == 0 then
    ngx.print("[]")
    return
  end
  ngx.print(cjson.encode(out))
end

return _M
