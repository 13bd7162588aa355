-- router: --routing=lua. Routes each request of the default server's
-- `location /` (pkg/nginxconf's Lua writer) by the route entry of its host,
-- as the classic writer's server and location blocks would (see
-- CONTRACT.md, "Lua routing"):
--
--   host:  the entry of $host, else of "*." and $host without its first
--          label (one label only, as the classic server_name regex), else
--          of "_" (the catch-all); no entry at all answers 404.
--   path:  an exact matcher of $uri; else nginx's automatic 301 of a
--          proxying prefix location named $uri .. "/"; else the regexes in
--          the entry's order, case-insensitive, the first that matches;
--          else the longest prefix ($uri is already normalised by nginx).
--
-- rewrite() (rewrite_by_lua) applies, in the classic location's order
-- (the route's access log first: $kubectl_ingress_loggable "0" when off):
-- the host's client certificate checks (client_auth.lua: nginx's, before
-- any phase), app-root (server level), the HTTPS redirect, a denied
-- location (503), auth-tls-match-cn (403) and the ssl-client-* headers, a
-- permanent/temporal redirect, CORS (a preflight answered 204),
-- the default backend of a path without backend, then the backend
-- ($proxy_upstream_name), the log and metric labels, $location_path, the
-- upstream Host and X-Forwarded-Prefix, rewrite-target (ngx.req.set_uri,
-- as nginx's "rewrite … break") and the proxy timeouts (balancer.lua sets
-- them), the variables of auth-type basic, and last balancer.rewrite() (503 without endpoints, canary), then what
-- nginx runs next in a classic location: the rate and connection limits
-- (limit.lua, nginx's preaccess phase) and the source ranges (403, the
-- access module, before auth_basic). auth-type basic is nginx's own
-- auth_basic of a named location (EVERY_PHASE_LOCATION, or the route's
-- shape location), on the variables rewrite() sets; access()
-- (access_by_lua, after it) drops the credentials before proxying and
-- measures a chunked body. The router's own location has no access phase
-- and no header filter (a handler there would cost every request): a
-- route that needs either is entered into a named location, and
-- rewrite() measures a chunked body in the router's own, last; log() ends the request
-- limit-connections counted; header_filter() the route's
-- custom-headers and CORS headers.
--
-- A route with a shape (custom-http-errors, proxy buffering and tuning:
-- what nginx cannot switch per request) is served by the named location
-- of its shape (nginxconf writes one per distinct shape, with its
-- error_page lines and proxy directives): rewrite() enters it by ngx.exec
-- as soon as the route is known, and runs again there from the start
-- ($kubectl_ingress_error_shape names the location it is in; ngx.ctx does
-- not survive ngx.exec).
--
-- Entries live in the shared dict routes_data (configuration.lua stores
-- them): "v:<host>" the version, "h:<host>" the JSON. Each worker keeps an
-- LRU of compiled entries; an entry is compiled on the first request after
-- its version moved. Nothing global is rebuilt on a change.
local cjson = require("cjson.safe")
local lrucache = require("resty.lrucache")
local balancer = require("balancer")
local cidr = require("cidr")
local client_auth = require("client_auth")
local limit = require("limit")
local configuration = require("configuration")
local reqctx = require("reqctx")
local rewrite = require("rewrite")
local util = require("util")

local route_of, host_of = reqctx.route_of, reqctx.host_of
local set_request_header = util.set_request_header
-- routes_left counts the entries of host_of, so that log() looks for one
-- only while there are some.
local routes_left = 0

-- leave records, under the request's key (reqctx), its host entry and
-- route (nil before one is chosen) for what reads them after rewrite()
-- without ngx.ctx: the request metrics (monitor.lua) and the sticky
-- balancer. log() drops them.
local function leave(key, host, r)
  if host_of[key] == nil then
    routes_left = routes_left + 1
  end
  host_of[key], route_of[key] = host, r
end

local ngx = ngx
local ngx_var = ngx.var
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_exit = ngx.exit
local ngx_redirect = ngx.redirect
local re_find = ngx.re.find
local re_match = ngx.re.match
local re_gsub = ngx.re.gsub
local escape_uri = ngx.escape_uri
local type = type
local ipairs = ipairs
local tonumber = tonumber
local tostring = tostring
local string_sub = string.sub
local string_byte = string.byte
local string_find = string.find
local string_match = string.match
local table_sort = table.sort

local SLASH = 47 -- "/"
local HTTP_TOO_LARGE = 413
local NO_LIMIT_RATE = "0k" -- compile_path's limit_rate for none
-- The named location of the routes with auth-type basic, enable-cors,
-- custom-headers or backend-protocol HTTPS and no shape of their own: the
-- router's location with nginx's auth_basic, access_by_lua,
-- header_filter_by_lua and the scheme of $kubectl_ingress_upstream_scheme
-- in proxy_pass, which the router's own location leaves out (each phase
-- handler, and a variable in proxy_pass, costs every request of its
-- location; see rewrite()).
local EVERY_PHASE_LOCATION = "@kubectl_ingress_every_phase"
local QUESTION = 63 -- "?"

local _M = {}

local cache -- host -> compiled entry (see compile)
local DEFAULT_CACHE = 10000

-- The hosts find() resolved, each with the configuration generation
-- (configuration.lua) it was resolved at and the entry that serves it
-- (false: none): while the generation has not moved, a request's host is
-- a table lookup, no shared-dict read per host. Two generations of at
-- most resolved_max names each: a name found in the older moves to the
-- newer; when the newer is full it becomes the older (so the names asked
-- for recently stay, as in an LRU, at a table lookup per request).
local resolved_new, resolved_old, resolved_count = {}, {}, 0
local resolved_max = DEFAULT_CACHE

local function resolved_put(host, hit)
  if resolved_count >= resolved_max then
    resolved_old, resolved_new, resolved_count = resolved_new, {}, 0
  end
  resolved_new[host] = hit
  resolved_count = resolved_count + 1
end

local function resolved_get(host)
  local hit = resolved_new[host]
  if hit then
    return hit
  end
  hit = resolved_old[host]
  if hit then
    resolved_put(host, hit)
  end
  return hit
end

-- set_server_name: the access log prints $kubectl_ingress_server_name,
-- which rewrite() sets to the host entry (classic nginx's $server_name).
local set_server_name = false
-- set_labels_always: the access log reads the labels ($namespace,
-- $ingress_name, $service_name, $service_port, $location_path), so that
-- every route sets them; otherwise only a route in a shape location does
-- (its error pages and snippet may read them), as the classic writer sets
-- them only where something reads them. The request metrics take them
-- from ngx.ctx (monitor.lua).
local set_labels_always = false
-- keep_route: the request metrics (monitor.lua) read every request's
-- host entry and route, which rewrite() leaves for them (leave). ngx.ctx
-- is made only for a route that something reads again from it after
-- rewrite() (compile_path's keeps_ctx, and a balancer that keeps the
-- request's state): the first ngx.ctx of a request costs about as much
-- as the rest of a plain route's Lua.
local keep_route = false
-- location_body_limit: the client_max_body_size of the router's own
-- location and of EVERY_PHASE_LOCATION in bytes (0: none), which nginx
-- checks itself: a route with that limit needs no check of its own.
local location_body_limit
-- relative_location: the named location with absolute_redirect off (the
-- routes of hosts with app-root), where the app-root redirect is answered.
local relative_location
-- known_shapes: the shape locations of this worker's nginx.conf, by name
-- (nil: not told, every shape taken as present).
local known_shapes
-- counts_connections: a route of this worker has limit-connections, so
-- that log() must look for a request to end (nothing else sets
-- $kubectl_ingress_conn_key).
local counts_connections = false

-- init_worker runs in init_worker_by_lua with the options nginxconf
-- writes: cache (the compiled entries each worker keeps), server_name,
-- labels, keep_route and body_limit (the variables above).
function _M.init_worker(opts)
  opts = type(opts) == "table" and opts or {}
  set_server_name = opts.server_name == true
  set_labels_always = opts.labels == true
  keep_route = opts.keep_route == true
  location_body_limit = tonumber(opts.body_limit)
  if type(opts.relative_redirects) == "string" then
    relative_location = opts.relative_redirects
  end
  if type(opts.shapes) == "table" then
    known_shapes = {}
    for _, name in ipairs(opts.shapes) do
      known_shapes[name] = true
    end
  end
  local size = tonumber(opts.cache) or DEFAULT_CACHE
  resolved_max = size
  local c, err = lrucache.new(size)
  if not c then
    ngx_log(ngx_ERR, "router: cannot create the route cache: ", err)
    return
  end
  cache = c
end

local function nets(list)
  local out = {}
  if type(list) == "table" then
    for _, s in ipairs(list) do
      local n = cidr.parse(s)
      if n then -- validate.lua refused an entry with a bad one
        out[#out + 1] = n
      end
    end
  end
  return out
end

local function str(v)
  if type(v) == "string" then
    return v
  end
  return ""
end

-- quote_meta escapes the regex characters of s as Go's regexp.QuoteMeta.
local function quote_meta(s)
  return (string.gsub(s, "[\\%.%+%*%?%(%)|%[%]{}%^%$]", "\\%0"))
end

-- compile_cors turns enable-cors into the origin regexes (as the classic
-- writer's originsRegexes: "*." is one DNS label, case-insensitive, the
-- whole origin) and the headers after Access-Control-Allow-Origin.
local function compile_cors(c)
  local out = { headers = {} }
  if type(c.allowOrigins) == "table" and #c.allowOrigins > 0 then
    out.origins = {}
    for _, o in ipairs(c.allowOrigins) do
      local p = quote_meta(o)
      local at = string_find(p, "\\*\\.", 1, true)
      if at then
        p = string_sub(p, 1, at - 1) .. "[A-Za-z0-9-]+\\." .. string_sub(p, at + 4)
      end
      out.origins[#out.origins + 1] = "^" .. p .. "$"
    end
  end
  local h = out.headers
  if c.allowCredentials == true then
    h[#h + 1] = { "Access-Control-Allow-Credentials", "true" }
  end
  for _, f in ipairs({ { "allowMethods", "Access-Control-Allow-Methods" }, { "allowHeaders", "Access-Control-Allow-Headers" },
      { "exposeHeaders", "Access-Control-Expose-Headers" } }) do
    local v = c[f[1]]
    if type(v) == "string" and v ~= "" then
      h[#h + 1] = { f[2], v }
    end
  end
  h[#h + 1] = { "Access-Control-Max-Age", tostring(tonumber(c.maxAge) or 0) }
  return out
end

-- compile_path turns a path of an entry into what rewrite() applies.
local function compile_path(p)
  local s = type(p.settings) == "table" and p.settings or {}
  local r = {
    backend = str(p.backend),
    default_backend = str(p.defaultBackend),
    namespace = str(p.namespace),
    ingress = str(p.ingress),
    service = str(p.service),
    service_port = str(p.servicePort),
    location_path = str(p.locationPath),
    log_off = p.accessLogOff == true,
    https_redirect = tonumber(s.httpsRedirect) or 0,
    preserve = s.preserveTrailingSlash == true,
    port_in_redirect = s.portInRedirect == true,
    denied = s.denied == true,
    status = tonumber(s.status),
    upstream_vhost = str(s.upstreamVhost),
    https_backend = s.backendProtocol == "HTTPS",
    x_forwarded_prefix = str(s.xForwardedPrefix),
    deny_all = s.denyAll == true,
    body_limit = tonumber(s.bodyLimit) or 0,
    limit_rate = tostring(tonumber(s.limitRate) or 0) .. "k",
    limit_rate_after = tostring(tonumber(s.limitRateAfter) or 0) .. "k",
    allow = nets(s.allow),
    deny = nets(s.deny),
    limits = limit.compile(s.limits),
  }
  if type(s.shape) == "string" and s.shape ~= "" then
    r.error_shape = s.shape
  end
  r.stream_body = s.streamBody == true
  r.server_name = s.serverName == true
  if type(s.authScope) == "string" and s.authScope ~= "" then
    r.auth_scope = s.authScope
  end
  if type(s.errorPages) == "table" then
    r.error_backend = str(s.errorPages.backend)
  end
  if type(s.basicAuth) == "table" then
    r.basic_auth = { realm = str(s.basicAuth.realm), file = str(s.basicAuth.userFile) }
  end
  r.satisfy_any = s.satisfyAny == true
  if type(s["return"]) == "table" then
    r.ret = { code = tonumber(s["return"].code), text = str(s["return"].text) }
  end
  r.rewrites = rewrite.compile(s.rewrites)
  if type(s.matchCN) == "string" and s.matchCN ~= "" then
    r.match_cn = s.matchCN
  end
  r.client_cert_headers = s.clientCertHeaders == true
  r.pass_client_cert = s.passClientCert == true
  if type(s.redirect) == "table" then
    r.redirect = { url = s.redirect.url, code = s.redirect.code }
  end
  if type(s.rewriteTarget) == "string" and s.rewriteTarget ~= "" and type(p.path) == "string" then
    r.rewrite_target = s.rewriteTarget
    r.rewrite_regex = "^" .. p.path
  end
  r.rewrite_log = s.rewriteLog == true
  if type(s.cors) == "table" then
    r.cors = compile_cors(s.cors)
  end
  if type(s.responseHeaders) == "table" and #s.responseHeaders > 0 then
    r.headers = {}
    for _, h in ipairs(s.responseHeaders) do
      r.headers[#r.headers + 1] = { h.name, h.vars == true and util.compile_expression(h.value) or h.value }
    end
  end
  local t = s.timeouts
  if type(t) == "table" then
    r.timeouts = { tonumber(t.connect) or 0, tonumber(t.send) or 0, tonumber(t.read) or 0 }
  end
  r.access = r.deny_all or #r.allow > 0 or #r.deny > 0
  -- the labels of the request metrics after host, status and method
  -- (monitor.lua), in $kubectl_ingress_monitor's order
  r.monitor_labels = r.location_path .. " " .. r.namespace .. " " .. r.ingress .. " " .. r.service
  -- what only a location with the access phase and the header filter
  -- serves
  -- (and backend-protocol HTTPS: the router's own location proxies to
  -- http:// alone, as a variable in its proxy_pass would cost every
  -- request)
  if type(s.hideHeaders) == "table" and #s.hideHeaders > 0 then
    -- the server-snippet's proxy_hide_header lines (header_filter)
    r.hide_headers = s.hideHeaders
  end
  r.every_phase = r.basic_auth ~= nil or r.cors ~= nil or r.headers ~= nil or r.https_backend
    or r.hide_headers ~= nil
  -- what a later phase reads of the route from ngx.ctx: access() and
  -- header_filter() in a named location, the CORS answer, the timeouts
  -- (balancer.lua)
  r.keeps_ctx = r.every_phase or r.error_shape ~= nil or r.timeouts ~= nil
  if r.body_limit == location_body_limit and not r.error_shape then
    -- nginx checks this limit itself, Content-Length and chunked bodies
    -- alike: the router's location and EVERY_PHASE_LOCATION have it
    r.body_limit = 0
  end
  if r.limits and r.limits.conn > 0 then
    counts_connections = true
  end
  return r
end

-- compile_client_auth is what rewrite() checks of a host's clientAuth
-- (client_auth.check); nil for none, or one that asks for no certificate.
local function compile_client_auth(ca)
  if type(ca) ~= "table" or ca.verify == "off" then
    return nil
  end
  local page = ca.errorPage
  return { verify = ca.verify, error_page = type(page) == "string" and page ~= "" and page or nil }
end

-- compile builds the matcher of an entry: exact map, prefix map with its
-- lengths (longest first), automatic redirects, regexes in order.
local function compile(entry)
  local c = {
    host = entry.host,
    version = entry.version,
    app_root = type(entry.appRoot) == "string" and entry.appRoot ~= "" and entry.appRoot or nil,
    client_auth = compile_client_auth(entry.clientAuth),
    -- the server-snippet's rewrite and return lines
    rewrites = rewrite.compile(entry.rewrites),
    port_in_redirect = entry.portInRedirect == true,
    exact = {}, prefix = {}, lengths = {}, auto = {}, regexes = {},
  }
  local seen_len = {}
  for _, p in ipairs(entry.paths) do
    local route = compile_path(p)
    if known_shapes and route.error_shape and not known_shapes[route.error_shape] then
      -- a shape location that this worker's nginx.conf lacks: the entry
      -- was posted for the nginx.conf of a reload this worker is not
      -- part of (an old worker still serving a connection, or a new one
      -- before the controller posted again). ngx.exec would answer 500;
      -- find() serves the name as if the entry were not there yet
      c.missing_shape = route.error_shape
    end
    for _, m in ipairs(p.matchers) do
      local v = m.value
      if m.kind == "exact" then
        if c.exact[v] == nil then
          c.exact[v] = route
        end
      elseif m.kind == "prefix" then
        if c.prefix[v] == nil then
          c.prefix[v] = route
          if not seen_len[#v] then
            seen_len[#v] = true
            c.lengths[#c.lengths + 1] = #v
          end
          if p.autoRedirect == true and #v > 1 and string_byte(v, -1) == SLASH then
            c.auto[string_sub(v, 1, -2)] = { route = route, name = v }
            c.has_auto = true
          end
        end
      elseif m.kind == "regex" then
        c.regexes[#c.regexes + 1] = { v, route, "ijo" }
      elseif m.kind == "regexCase" then
        -- a server-snippet's "~"
        c.regexes[#c.regexes + 1] = { v, route, "jo" }
      elseif m.kind == "prefixNoRegex" then
        -- a server-snippet's "^~": the longest prefix stops the regexes
        if c.prefix[v] == nil then
          c.prefix[v] = route
          c.no_regex = c.no_regex or {}
          c.no_regex[v] = true
          if not seen_len[#v] then
            seen_len[#v] = true
            c.lengths[#c.lengths + 1] = #v
          end
        end
      end
    end
  end
  table_sort(c.lengths, function(a, b) return a > b end)
  return c
end

-- entry returns the compiled entry of host (a dict key), nil when there
-- is none.
local function entry(dict, host)
  local version = dict:get("v:" .. host)
  if not version then
    return nil
  end
  local c = cache and cache:get(host)
  if c and c.version == version then
    return c
  end
  local raw = dict:get("h:" .. host)
  if not raw then
    return nil -- deleted meanwhile
  end
  local decoded, err = cjson.decode(raw)
  if type(decoded) == "table" and type(decoded.aliasOf) == "string" then
    -- a server-alias: find() serves it with its host's entry
    c = { version = version, alias_of = decoded.aliasOf }
  elseif type(decoded) ~= "table" or type(decoded.paths) ~= "table" then
    ngx_log(ngx_ERR, "router: cannot decode the routes of ", host, ": ", tostring(err))
    return nil
  else
    c = compile(decoded)
  end
  if cache then
    cache:set(host, c)
  end
  return c
end

-- served is the entry that serves the name host: its own, or for a
-- server-alias the entry of its host (nil while that one is missing).
local function served(dict, host)
  local c = entry(dict, host)
  if c and c.alias_of then
    c = entry(dict, c.alias_of)
    if c and c.alias_of then
      return nil -- validate.lua refuses an alias of "_", not chains
    end
  end
  if c and c.missing_shape then
    return nil -- see compile()
  end
  return c
end

-- find_now returns the entry that serves host: an exact name (a host or
-- a server-alias), a "*." name of one label (a host or a server-alias),
-- else the catch-all, as nginx chooses among the classic server_names.
local function find_now(host)
  local dict = ngx.shared.routes_data
  if not dict then
    return nil
  end
  local c = served(dict, host)
  if c then
    return c
  end
  local wildcard = util.wildcard(host)
  if wildcard then
    c = served(dict, wildcard)
    if c then
      return c
    end
  end
  return served(dict, "_")
end

-- find is find_now, resolved again only once generation gen moved (nil:
-- unknown, always resolved).
local function find(host, gen)
  local hit = resolved_get(host)
  if gen and hit and hit.gen == gen then
    return hit.c or nil
  end
  local c = find_now(host)
  if gen then
    if hit then
      hit.gen, hit.c = gen, c or false
    else
      resolved_put(host, { gen = gen, c = c or false })
    end
  end
  return c
end

-- match returns the route of uri in c and, for nginx's automatic redirect,
-- the location name to redirect to.
local function match(c, uri)
  local r = c.exact[uri]
  if r then
    return r
  end
  if c.has_auto then
    local a = c.auto[uri]
    if a then
      return a.route, a.name
    end
  end
  local best
  local n = #uri
  for _, len in ipairs(c.lengths) do
    if len <= n then
      local name = string_sub(uri, 1, len)
      best = c.prefix[name]
      if best then
        if c.no_regex and c.no_regex[name] then
          return best
        end
        break
      end
    end
  end
  for _, rx in ipairs(c.regexes) do
    local from, _, err = re_find(uri, rx[1], rx[3])
    if from then
      return rx[2]
    end
    if err then
      ngx_log(ngx_ERR, "router: path regex ", rx[1], ": ", err)
    end
  end
  return best
end

-- absolute makes a redirect target absolute as nginx's absolute_redirect
-- does for a location of a server without app-root: scheme, the host and,
-- with the route's use-port-in-redirects (nginx's port_in_redirect), the
-- port unless it is the scheme's own.
local function absolute(c, r, location)
  if c.app_root or string_byte(location, 1) ~= SLASH then
    return location -- app-root turns absolute_redirect off in that server
  end
  local scheme = ngx_var.scheme
  local host = ngx_var.host
  if not r.port_in_redirect then
    return scheme .. "://" .. host .. location
  end
  local port = ngx_var.server_port
  if (scheme == "https" and port == "443") or (scheme == "http" and port == "80") then
    return scheme .. "://" .. host .. location
  end
  return scheme .. "://" .. host .. ":" .. port .. location
end

-- expand replaces $1..$9 in target by the captures m (a capture that did
-- not take part is empty), each escaped as an argument when escape.
local function expand(target, m, escape)
  if not string_find(target, "$", 1, true) then
    return target
  end
  local out = re_gsub(target, [[\$([1-9])]], function(c)
    local v = m[tonumber(c[1])] or ""
    if escape then
      v = util.escape_args(v) -- NGX_ESCAPE_ARGS
    end
    return v
  end, "jo")
  return out
end

local quoted = rewrite.quoted

local function is_redirect(tpl)
  return string_sub(tpl, 1, 7) == "http://" or string_sub(tpl, 1, 8) == "https://"
end

-- rewrite_target applies rewrite-target as nginx's "rewrite (?i)^path
-- target break" (checked against nginx 1.22): the new URI, and the
-- arguments after a "?" of the target followed by the request's; a
-- target ending in "?" drops the request's. A target that starts with
-- http:// or https:// redirects (302), the request's arguments appended
-- unless it has its own. Captures copied into the arguments are escaped
-- when the request's path was (quoted); those of the path are not.
local function rewrite_target(c, r, uri)
  local m = re_match(uri, r.rewrite_regex, "ijo")
  if r.rewrite_log then
    -- enable-rewrite-log: the notices of nginx's rewrite log for the
    -- classic location's "rewrite (?i)^path target break"
    ngx_log(ngx.NOTICE, '"(?i)', r.rewrite_regex, m and '" matches "' or '" does not match "', uri, '"')
  end
  if not m then
    return
  end
  local tpl = r.rewrite_target
  local args = ngx_var.args or ""
  local keep = string_byte(tpl, -1) ~= QUESTION
  if not keep then
    tpl = string_sub(tpl, 1, -2)
  end
  local redirect = is_redirect(tpl)
  local q = string_find(tpl, "?", 1, true)
  local path, new_args
  if q then
    path = expand(string_sub(tpl, 1, q - 1), m)
    new_args = expand(string_sub(tpl, q + 1), m, quoted())
    if keep and args ~= "" then
      new_args = new_args .. "&" .. args
    end
  else
    path = expand(tpl, m)
    if not keep then
      new_args = ""
    end
  end
  if redirect then
    local target = path
    if new_args then
      if new_args ~= "" then
        target = target .. "?" .. new_args
      end
    elseif args ~= "" then
      target = target .. "?" .. args
    end
    if r.rewrite_log then
      ngx_log(ngx.NOTICE, 'rewritten redirect: "', target, '"')
    end
    return ngx_redirect(target, 302)
  end
  if path == "" then
    ngx_log(ngx_ERR, "router: rewrite-target gave an empty URI for ", uri)
    return ngx_exit(ngx.HTTP_INTERNAL_SERVER_ERROR)
  end
  if r.rewrite_log then
    ngx_log(ngx.NOTICE, 'rewritten data: "', path, '", args: "', new_args or args, '"')
  end
  ngx.req.set_uri(path, false, true) -- binary: any byte nginx's URI may hold
  if new_args then
    ngx.req.set_uri_args(new_args)
  end
  return c
end

-- answer is nginx's "return code [text]" of a server-snippet location:
-- a redirect to text (absolute, as nginx makes it), text as the body, or
-- nginx's own answer of code (444 closes the connection).
local function answer(c, r, ret)
  local code, text = ret.code, ret.text
  if code == 301 or code == 302 or code == 303 or code == 307 or code == 308 then
    return ngx_redirect(absolute(c, r, text), code)
  end
  if text == "" then
    if code < 300 then
      ngx.header["Content-Length"] = 0
    end
    return ngx_exit(code)
  end
  ngx.status = code
  ngx.header["Content-Length"] = #text
  ngx.print(text)
  return ngx_exit(ngx.HTTP_OK)
end

-- https_redirect redirects plain HTTP as the classic location does.
local function https_redirect(r)
  if r.https_redirect == 0 or ngx_var.pass_access_scheme ~= "http" then
    return
  end
  local uri = ngx_var.request_uri
  if not r.preserve and string_byte(uri, -1) == SLASH then
    uri = string_sub(uri, 1, -2)
  end
  return ngx_redirect("https://" .. ngx_var.kubectl_ingress_redirect_host .. uri, r.https_redirect)
end

-- Each variable write costs a lookup of the name in nginx's variables:
-- set_labels writes only what differs from the variable's map
-- (nginxconf's writeRouterVarMaps) and what something reads.
local function set_labels(r)
  -- (the request metrics take them from the route: leave, route_ctx)
  -- limit-rate: nginx's own $limit_rate (none where it is not written);
  -- limit-rate-after: the location's limit_rate_after reads this
  -- variable once the answer starts, when a rate applies ("0" in its map)
  if r.limit_rate ~= NO_LIMIT_RATE then
    ngx_var.limit_rate = r.limit_rate
  end
  if r.limit_rate_after ~= NO_LIMIT_RATE then
    ngx_var.kubectl_ingress_limit_rate_after = r.limit_rate_after
  end
  if set_labels_always or r.error_shape then
    ngx_var.namespace = r.namespace
    ngx_var.ingress_name = r.ingress
    ngx_var.service_name = r.service
    ngx_var.service_port = r.service_port
    ngx_var.location_path = r.location_path
  end
  if r.error_backend then
    ngx_var.kubectl_ingress_error_backend = r.error_backend
  end
  if r.auth_scope then
    -- the key of the auth answers cached for the route (its shape's
    -- internal auth location reads it: a subrequest shares the variables)
    ngx_var.kubectl_ingress_auth_scope = r.auth_scope
  end
end

-- cors applies enable-cors: an allowed origin (any, or the request's
-- Origin matching one of the list) gets the CORS headers on the answer
-- (header_filter), and its preflight (OPTIONS) is answered 204 here.
local function cors(ctx, c)
  local origin = "*"
  if c.origins then
    origin = ngx_var.http_origin
    local allowed = false
    if origin then
      for _, re in ipairs(c.origins) do
        if re_find(origin, re, "ijo") then
          allowed = true
          break
        end
      end
    end
    if not allowed then
      return
    end
  end
  ctx.cors_origin = origin
  ctx.cors = c
  if ngx_var.request_method == "OPTIONS" then
    ctx.cors_preflight = true
    return ngx_exit(ngx.HTTP_NO_CONTENT)
  end
end

-- body_size is the size of the request body read by ngx.req.read_body.
local function body_size()
  local data = ngx.req.get_body_data()
  if data then
    return #data
  end
  local path = ngx.req.get_body_file()
  if not path then
    return 0
  end
  local f = io.open(path, "rb")
  if not f then
    return 0
  end
  local size = f:seek("end") or 0
  f:close()
  return size
end

-- in_ranges tells whether the route's source ranges let the client in.
local function in_ranges(r)
  if r.deny_all then
    return false
  end
  local bin = ngx_var.binary_remote_addr
  if not bin or cidr.any(r.deny, bin) then
    return false
  end
  return #r.allow == 0 or cidr.any(r.allow, bin)
end

-- check_ranges refuses (403) a client the route's source ranges do not
-- let in. With satisfy any (the route has an authentication too, and
-- no deny all), one an allow range lets in is not asked to authenticate: auth_basic
-- is off and the shape's auth subrequest answers 204 at once; one they
-- refuse goes on to authenticate, and nginx answers 401 if it does not
-- (its access phase under satisfy any prefers 401 to 403).
local function check_ranges(r)
  local ok = in_ranges(r)
  if r.satisfy_any then
    -- nginx's access module lets a client in by an allow line only: with
    -- deny lines alone it lets nobody in, and the authentication decides
    -- for every client
    local granted = ok and #r.allow > 0
    -- its one authentication: basic, else its shape's auth subrequest
    if granted and r.basic_auth then
      ngx_var.kubectl_ingress_auth_basic = "off"
    elseif granted then
      ngx_var.kubectl_ingress_auth_passed = "1"
    end
    return
  end
  if not ok then
    return ngx_exit(ngx.HTTP_FORBIDDEN)
  end
end

-- check_chunked_body measures a chunked body against proxy-body-size: it
-- reads it now (nginx reads it whole before proxying anyway with request
-- buffering on; a route that streams its body is in a shape location
-- whose client_max_body_size is its own). An HTTP/2 request without a
-- Content-Length is read the same way (nginx reads its body as a chunked
-- one; reading none costs nothing).
-- length is the request's $content_length (nil when it has none).
local function check_chunked_body(r, length)
  if r.body_limit > 0 and not r.stream_body and not length
    and (ngx_var.http_transfer_encoding or ngx.req.http_version() == 2) then
    ngx.req.read_body()
    if body_size() > r.body_limit then
      ngx_log(ngx.INFO, "router: client intended to send too large chunked body")
      return ngx_exit(HTTP_TOO_LARGE)
    end
  end
end

-- has_access_phase tells whether r runs in a location with access()
-- (a shape location, or EVERY_PHASE_LOCATION); the router's own location
-- has none, and rewrite() measures a chunked body there (nothing of that
-- location's access phase would answer first).
local function has_access_phase(r)
  return r.error_shape ~= nil or r.every_phase
end

-- preaccess ends rewrite(): what nginx runs after the rewrite phase and
-- before the access phase's checks of credentials, as in the classic
-- location: the rate and connection limits (limit.lua; nginx's
-- preaccess phase), then the source ranges (nginx's access module, which
-- runs before auth_basic: a denied client gets 403, never 401, but under
-- satisfy any; see check_ranges).
local function preaccess(r, length)
  if r.limits then
    local status = limit.check(r.limits, ngx_var.binary_remote_addr or "")
    if status then
      return ngx_exit(status)
    end
  end
  if r.access then
    check_ranges(r)
  end
  if not has_access_phase(r) then
    return check_chunked_body(r, length)
  end
end

-- access runs in access_by_lua of the shape and basic-auth locations,
-- after nginx's auth_basic accepted the credentials of a route with
-- auth-type basic (lua-nginx-module runs it last in the access phase):
-- the backend never gets them (the classic location's proxy_set_header
-- Authorization ""); then a chunked body is measured against
-- proxy-body-size.
function _M.access()
  local r = ngx.ctx.route
  if not r then
    return
  end
  if r.basic_auth then
    ngx.req.clear_header("Authorization")
  end
  return check_chunked_body(r, ngx_var.content_length)
end

-- route_ctx makes the request's ngx.ctx with what the later phases read
-- of its route: the host entry (the affinity cookie's host in
-- balancer_sticky.lua, and the metrics' in monitor.lua), the route
-- (access(), header_filter(), the sticky balancer) and the labels of the
-- request metrics.
local function route_ctx(ctx, host, r)
  ctx = ctx or ngx.ctx
  ctx.route_host = host
  ctx.route = r
  ctx.monitor_labels = r.monitor_labels
  return ctx
end

-- MAX_SEARCHES is nginx's limit of location searches for a request: the
-- first and NGX_HTTP_MAX_URI_CHANGES (10) more; a URI that a snippet's
-- rewrite changes an eleventh time answers 500.
local MAX_SEARCHES = 11
local SEARCH_AGAIN = {}

-- forget undoes what serve() set for route r before a snippet's rewrite
-- asked for the locations to be searched again, where the next route
-- might not set its own: the rate limit and the request's ngx.ctx (the
-- next route's labels, and the shape variables it reads, it writes).
local function forget(ctx, r)
  if r.limit_rate ~= NO_LIMIT_RATE then
    ngx_var.limit_rate = 0
  end
  if r.limit_rate_after ~= NO_LIMIT_RATE then
    ngx_var.kubectl_ingress_limit_rate_after = "0"
  end
  if r.log_off then
    -- the value of the variable's map: skip-access-log-urls' $loggable
    -- when nginx.conf has it, else "1"
    ngx_var.kubectl_ingress_loggable = ngx_var.loggable or "1"
  end
  if ctx then
    ctx.cors, ctx.cors_origin = nil, nil
    ctx.route, ctx.route_host, ctx.monitor_labels = nil, nil, nil
  end
end

-- serve applies route r of host entry c, which match() found for the
-- request's URI, as the classic location runs its phases; again is true
-- when a snippet's rewrite of another route asked for the search. It
-- returns SEARCH_AGAIN when a snippet's rewrite of r asks for the
-- locations to be searched again (the URI changed).
local function serve(c, r, auto, gen, key, again)
  local ctx
  if r.error_shape then
    if ngx_var.kubectl_ingress_error_shape ~= r.error_shape then
      -- custom-http-errors: the route runs in the named location with its
      -- error_page lines, from the start (so that every answer of the
      -- route, nginx's own included, meets them as in a classic location)
      return ngx.exec(r.error_shape)
    end
    if r.server_name and not set_server_name then
      -- the shape location reads it (a FastCGI backend's SERVER_NAME)
      ngx_var.kubectl_ingress_server_name = c.host
    end
  elseif r.every_phase and ngx_var.kubectl_ingress_error_shape ~= EVERY_PHASE_LOCATION then
    -- auth-type basic, CORS, custom-headers: the location with auth_basic,
    -- access() and header_filter()
    return ngx.exec(EVERY_PHASE_LOCATION)
  elseif again then
    -- searched again from another route's shape location: one without
    -- that shape's directives (the router's own is not a named one)
    local here = ngx_var.kubectl_ingress_error_shape
    if here ~= "" and here ~= EVERY_PHASE_LOCATION then
      return ngx.exec(EVERY_PHASE_LOCATION)
    end
  end
  if key then
    leave(key, c.host, r)
  end
  if r.keeps_ctx then
    ctx = route_ctx(nil, c.host, r)
  end
  if r.log_off then
    ngx_var.kubectl_ingress_loggable = "0"
  end
  if r.status then
    -- the catch-all's health check location: "return 200;"
    ngx.header["Content-Length"] = 0
    return ngx_exit(r.status)
  end
  -- proxy-body-size: nginx checks Content-Length once it chose the
  -- location, before anything else of it (the router's location has the
  -- largest limit of all routes); a chunked body is checked in access()
  local limit = r.body_limit
  local length
  if limit > 0 then
    length = tonumber(ngx_var.content_length)
    if length and length > limit then
      ngx_log(ngx.INFO, "router: client intended to send too large body: ", length, " bytes")
      return ngx_exit(HTTP_TOO_LARGE)
    end
  end
  if r.ret then
    -- a server-snippet location's return (its rewrite phase)
    return answer(c, r, r.ret)
  end
  if auto then
    local location = escape_uri(auto, 0)
    local args = ngx_var.args
    if args and args ~= "" then
      location = location .. "?" .. args
    end
    return ngx_redirect(absolute(c, r, location), 301)
  end
  set_labels(r)
  https_redirect(r)
  if r.denied then
    return ngx_exit(ngx.HTTP_SERVICE_UNAVAILABLE)
  end
  if r.match_cn then
    -- 403 unless the certificate's subject matches (ends the request)
    client_auth.match_cn(r.match_cn)
  end
  if r.redirect then
    return ngx_redirect(r.redirect.url, r.redirect.code)
  end
  if r.cors then
    cors(ctx, r.cors)
  end
  local rewritten
  if r.rewrites then
    -- the configuration-snippet's rewrite and return lines
    local what, a, b = rewrite.run(r.rewrites, r.rewrite_log)
    if what == "answer" then
      return answer(c, r, a)
    elseif what == "redirect" then
      return ngx_redirect(absolute(c, r, a), b)
    elseif what == rewrite.LAST then
      forget(ctx, r)
      return SEARCH_AGAIN
    end
    rewritten = what
  end
  local backend = r.backend
  if backend == "" then
    backend = r.default_backend
    if backend == "" then
      return ngx_exit(ngx.HTTP_NOT_FOUND)
    end
  elseif r.rewrite_target and rewritten ~= rewrite.BREAK then
    -- its "break" ends a search that a snippet's rewrite asked for
    if rewrite_target(c, r, ngx_var.uri) then
      rewritten = nil
    end
  end
  if rewritten == rewrite.CHANGED then
    -- nginx searches the locations again after the rewrite phase: what
    -- follows is the next route's to set
    forget(ctx, r)
    return SEARCH_AGAIN
  end
  if r.client_cert_headers then
    client_auth.set_headers(r)
  end
  local ba = r.basic_auth
  if ba then
    -- nginx's auth_basic of the location reads them (access phase)
    ngx_var.kubectl_ingress_auth_basic = ba.realm
    ngx_var.kubectl_ingress_auth_basic_user_file = ba.file
  end
  if r.backend == "" then
    -- what the classic location tells the default backend
    set_request_header("X-Code", "404")
    set_request_header("X-Format", ngx_var.http_accept)
    set_request_header("X-Original-URI", ngx_var.request_uri)
  else
    if r.upstream_vhost ~= "" then
      ngx_var.kubectl_ingress_upstream_host = r.upstream_vhost
    end
    if r.https_backend then
      ngx_var.kubectl_ingress_upstream_scheme = "https"
    end
    if r.x_forwarded_prefix ~= "" then
      set_request_header("X-Forwarded-Prefix", r.x_forwarded_prefix)
    end
    if r.timeouts then
      ctx.balancer_timeouts = r.timeouts
    end
  end
  ngx_var.proxy_upstream_name = backend
  local made, b = balancer.rewrite(backend, ctx, gen)
  if made then
    -- a canary, or a balancer that keeps the request's state
    route_ctx(made, c.host, r)
  elseif not ctx and not key and b.wants_route then
    -- the sticky balancer, which reads the route to set its cookie
    leave(reqctx.key(), c.host, r)
  end
  return preaccess(r, length)
end

-- rewrite runs in rewrite_by_lua of the Lua location.
function _M.rewrite()
  -- read first: whatever is stored after it moves it again
  local gen = configuration.generation()
  local c = find(ngx_var.host or "_", gen)
  if not c then
    return ngx_exit(ngx.HTTP_NOT_FOUND)
  end
  -- ngx.ctx only where something reads it later (see keep_route)
  local key
  if keep_route then
    key = reqctx.key()
    leave(key, c.host, nil)
  end
  if set_server_name then
    ngx_var.kubectl_ingress_server_name = c.host
  end
  if c.client_auth then
    -- nginx's checks before the server's rewrite phase: 421, 400 (ends
    -- the request when it answers), or an auth-tls-error-page path to
    -- serve instead of the request's URI
    local page = client_auth.check(c.client_auth)
    if page then
      client_auth.serve_page(page)
    end
  end
  local uri = ngx_var.uri
  if c.app_root and uri == "/" then
    -- relative, as the classic server's (absolute_redirect off there):
    -- from the named location that has it off
    if relative_location and ngx_var.kubectl_ingress_error_shape ~= relative_location then
      return ngx.exec(relative_location)
    end
    return ngx_redirect(c.app_root, 302)
  end
  if c.rewrites and ngx_var.kubectl_ingress_error_shape == "" then
    -- the server-snippet's rewrite and return lines: nginx's server
    -- rewrite phase, which runs once (not again in a named location the
    -- router enters); any URI they leave is matched
    local what, a, b = rewrite.run(c.rewrites, false)
    if what == "answer" then
      return answer(c, c, a)
    elseif what == "redirect" then
      return ngx_redirect(absolute(c, c, a), b)
    end
    uri = ngx_var.uri
  end
  for search = 1, MAX_SEARCHES do
    if search > 1 then
      uri = ngx_var.uri
    end
    local r, auto = match(c, uri)
    if not r then
      return ngx_exit(ngx.HTTP_NOT_FOUND)
    end
    if serve(c, r, auto, gen, key, search > 1) ~= SEARCH_AGAIN then
      return
    end
  end
  ngx_log(ngx_ERR, "router: rewrite or internal redirection cycle while processing \"", ngx_var.uri, "\"")
  return ngx_exit(ngx.HTTP_INTERNAL_SERVER_ERROR)
end

-- header_filter runs in header_filter_by_lua of the named locations: the
-- route's custom-headers, then the CORS headers of an allowed origin
-- (the classic location's "if" blocks apply theirs after the location's),
-- each replacing the backend's, as the classic more_set_headers.
function _M.header_filter()
  local ctx = ngx.ctx
  local r = ctx.route
  local header = ngx.header
  if r and r.hide_headers then
    -- the server-snippet's proxy_hide_header: before the route's own
    -- headers, which a classic location adds after hiding the backend's
    for _, name in ipairs(r.hide_headers) do
      header[name] = nil
    end
  end
  if r and r.headers then
    -- custom-headers: every answer of the route but a denied one
    for _, h in ipairs(r.headers) do
      local v = h[2]
      header[h[1]] = type(v) == "table" and util.expand(v) or v
    end
  end
  local c = ctx.cors
  if not c then
    return
  end
  header["Access-Control-Allow-Origin"] = ctx.cors_origin
  for _, h in ipairs(c.headers) do
    header[h[1]] = h[2]
  end
  if ctx.cors_preflight then
    header["Content-Type"] = "text/plain; charset=utf-8"
    header["Content-Length"] = "0"
  end
end

-- log runs in the http level's log_by_lua: it drops the route it left for
-- the balancer, and ends a request that limit-connections counted.
function _M.log()
  if routes_left > 0 then
    local key = reqctx.key()
    if key and host_of[key] ~= nil then
      host_of[key], route_of[key] = nil, nil
      routes_left = routes_left - 1
    end
  end
  if counts_connections then
    return limit.done()
  end
end

return _M
