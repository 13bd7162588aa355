-- limit: limit-rps, limit-rpm and limit-connections of the Lua router
-- (router.lua), counted as nginx's limit_req (with nodelay) and
-- limit_conn modules count the classic writer's zones, in the shared dict
-- route_limits (nginxconf.DictRouteLimits):
--
--   rate:  a leaky bucket per Ingress (zone), kind and client address
--          ($binary_remote_addr), in thousandths of a request as nginx's
--          ngx_http_limit_req_lookup: a client's first request leaves it
--          empty; each later one adds 1000 after draining rate * ms / 1000;
--          a request that would take it over the burst is refused and
--          leaves it unchanged. With both rps and rpm, a request passes
--          only when both buckets take it, and only then are both filled
--          (nginx's accounting of several limit_req lines). An idle bucket
--          is dropped once it has drained and 60 s have passed, as nginx's
--          ngx_http_limit_req_expire drops a node.
--   conn:  a counter of the client's requests in progress; one over the
--          limit is refused. The count ends in the log phase (done(), the
--          key kept in $kubectl_ingress_conn_key, which an internal
--          redirect keeps).
--
-- The rate check runs before the connection check (nginx runs limit_req's
-- preaccess handler before limit_conn's), both before the source ranges.
-- A client in the route's exempt networks (limit-allowlist) is not
-- counted, as nginx skips an empty key. The read and the write of a bucket
-- are two operations of the dict: two workers serving the same client in
-- the same millisecond may each let one request more through, as
-- lua-resty-limit-traffic's limiter.
local cidr = require("cidr")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_var = ngx.var
local type = type
local ipairs = ipairs
local tonumber = tonumber
local math_floor = math.floor
local math_ceil = math.ceil
local string_match = string.match
local string_format = string.format

local _M = {}

-- IDLE is how long, in seconds, a drained bucket is kept.
local IDLE = 60

local function count(v)
  local n = tonumber(v)
  if n and n > 0 then
    return math_floor(n)
  end
  return 0
end

-- compile turns the limits of a route (luaapi.RouteLimits) into what
-- check applies; nil for none.
function _M.compile(l)
  if type(l) ~= "table" then
    return nil
  end
  local zone = type(l.zone) == "string" and l.zone or ""
  local c = {
    buckets = {},
    conn = count(l.connections),
    conn_key = "c:" .. zone .. ":",
    req_status = count(l.reqStatus) > 0 and count(l.reqStatus) or 503,
    conn_status = count(l.connStatus) > 0 and count(l.connStatus) or 503,
    zone = zone,
    exempt = {},
  }
  if type(l.exempt) == "table" then
    for _, s in ipairs(l.exempt) do
      local n = cidr.parse(s)
      if n then -- validate.lua refused an entry with a bad one
        c.exempt[#c.exempt + 1] = n
      end
    end
  end
  -- rate: thousandths of a request a second (nginx: rate * 1000 / 60 for
  -- r/m, an integer); burst: thousandths of a request
  if count(l.rps) > 0 then
    c.buckets[#c.buckets + 1] = { key = "r:" .. zone .. ":", rate = count(l.rps) * 1000, burst = count(l.rpsBurst) * 1000 }
  end
  if count(l.rpm) > 0 then
    c.buckets[#c.buckets + 1] = { key = "m:" .. zone .. ":", rate = math_floor(count(l.rpm) * 1000 / 60),
      burst = count(l.rpmBurst) * 1000 }
  end
  if #c.buckets == 0 and c.conn == 0 then
    return nil
  end
  return c
end

-- excess_after returns the bucket's excess if the request at now (ms) is
-- taken, from its stored state raw ("<excess> <last ms>"), or nil.
local function excess_after(b, raw, now)
  if not raw then
    return 0
  end
  local e, last = string_match(raw, "^(%d+) (%d+)$")
  e, last = tonumber(e), tonumber(last)
  if not e then
    return 0
  end
  local ms = now - last
  if ms < 0 then
    ms = 0
  end
  local excess = e - math_floor(b.rate * ms / 1000) + 1000
  if excess < 0 then
    excess = 0
  end
  return excess
end

-- check counts the request of a client (bin: $binary_remote_addr) against
-- the compiled limits c; it returns the status to refuse it with, or nil
-- when it passes.
function _M.check(c, bin)
  if #c.exempt > 0 and cidr.any(c.exempt, bin) then
    return nil
  end
  local dict = ngx.shared.route_limits
  if not dict then
    return nil
  end
  local n = #c.buckets
  if n > 0 then
    local now = math_floor(ngx.now() * 1000)
    local taken = {}
    for i, b in ipairs(c.buckets) do
      local excess = excess_after(b, dict:get(b.key .. bin), now)
      if excess > b.burst then
        ngx_log(ngx_ERR, string_format("limiting requests, excess: %.3f by zone \"%s\"", excess / 1000, c.zone))
        return c.req_status
      end
      taken[i] = excess
    end
    for i, b in ipairs(c.buckets) do
      local ttl = IDLE + math_ceil(taken[i] / b.rate)
      local ok, err = dict:set(b.key .. bin, taken[i] .. " " .. now, ttl)
      if not ok then
        ngx_log(ngx_ERR, "limit: cannot store the bucket of zone ", c.zone, ": ", err)
      end
    end
  end
  if c.conn > 0 then
    local key = c.conn_key .. bin
    local in_progress, err = dict:incr(key, 1, 0)
    if not in_progress then
      ngx_log(ngx_ERR, "limit: cannot count the connections of zone ", c.zone, ": ", err)
      return nil
    end
    if in_progress > c.conn then
      dict:incr(key, -1)
      ngx_log(ngx_ERR, "limiting connections by zone \"", c.zone, "\"")
      return c.conn_status
    end
    ngx_var.kubectl_ingress_conn_key = key
  end
  return nil
end

-- done ends the request counted by check (log phase).
function _M.done()
  local key = ngx_var.kubectl_ingress_conn_key
  if not key or key == "" then
    return
  end
  local dict = ngx.shared.route_limits
  if dict then
    dict:incr(key, -1) -- none when evicted meanwhile: never below 0
  end
end

return _M
