-- validate: checks the payloads of the configuration API before anything
-- is stored (see CONTRACT.md), one entry (backend, host, certificate) at a
-- time: a bad entry is reported with a message naming its bad field, and
-- the others are applied. Only a body that is unusable as a whole (not
-- JSON, not of the right shape) is refused. Fields that the Lua modules read must have the documented type
-- (or be absent or null); other fields are free, so that ingress-nginx's
-- controller, which sends more, is accepted.
local cjson = require("cjson.safe")
local util = require("util")
local jsonscan = require("jsonscan")
local ssl_ciphers = require("ssl_ciphers")

local type = type
local ipairs = ipairs
local pairs = pairs
local tostring = tostring
local tonumber = tonumber
local math_floor = math.floor
local string_lower = string.lower
local string_sub = string.sub
local table_sort = table.sort

local _M = {}

local function is_null(v)
  return v == nil or v == cjson.null
end

-- The checks below return nil when the value is fine, else the reason.
-- Field paths are built only for the message of a failure: a payload of
-- 10,000 backends is checked without allocating per backend.

local function a_string(v)
  if type(v) ~= "string" then
    return "must be a string"
  end
end

local function a_boolean(v)
  if type(v) ~= "boolean" then
    return "must be true or false"
  end
end

local function an_object(v)
  if not util.is_object(v) then
    return "must be an object"
  end
end

-- a_count accepts a whole number >= 0, or a string of one (or "").
local function a_count(v)
  if v == "" then
    return nil
  end
  local n = tonumber(v)
  if (type(v) ~= "number" and type(v) ~= "string") or not n or n < 0 or n ~= math_floor(n) then
    return "must be a whole number >= 0"
  end
end

local function names_list(v)
  if not util.is_array(v) then
    return "must be an array"
  end
  for _, name in ipairs(v) do
    if type(name) ~= "string" or name == "" then
      return "must hold non-empty strings"
    end
  end
end

-- Optional fields (absent or null allowed): {field, check} per object.
local BACKEND_FIELDS = {
  { "load-balance", a_string }, { "service", an_object }, { "noServer", a_boolean },
  { "sessionAffinityConfig", an_object }, { "upstreamHashByConfig", an_object },
  { "trafficShapingPolicy", an_object }, { "alternativeBackends", names_list },
}
local AFFINITY_FIELDS = { { "name", a_string }, { "mode", a_string }, { "cookieSessionAffinity", an_object } }
local COOKIE_FIELDS = {
  { "name", a_string }, { "path", a_string }, { "domain", a_string }, { "samesite", a_string },
  { "expires", a_count }, { "maxage", a_count },
  { "secure", a_boolean }, { "change_on_failure", a_boolean }, { "conditional_samesite_none", a_boolean },
  { "locations", an_object },
}
local HASH_FIELDS = {
  { "upstream-hash-by", a_string }, { "upstream-hash-by-subset", a_boolean },
  { "upstream-hash-by-subset-size", a_count },
}
local POLICY_FIELDS = {
  { "weight", a_count }, { "weightTotal", a_count }, { "header", a_string },
  { "headerValue", a_string }, { "headerPattern", a_string }, { "cookie", a_string },
}

-- fields checks the optional fields of obj; it returns the bad field's
-- name and the reason.
local function fields(obj, list)
  for i = 1, #list do
    local f = list[i]
    local v = obj[f[1]]
    if v ~= nil and v ~= cjson.null then
      local err = f[2](v)
      if err then
        return f[1], err
      end
    end
  end
  return nil
end

-- check_endpoints returns the path (below the backend) and reason of the
-- first bad endpoint. valid memoizes util.valid_address for the payload:
-- backends of one Service (one per port, canaries) repeat its addresses,
-- and an IPv6 check is not cheap.
local function check_endpoints(endpoints, valid)
  if not util.is_array(endpoints) then
    return "endpoints", "must be an array"
  end
  for j = 1, #endpoints do
    local ep = endpoints[j]
    if not util.is_object(ep) then
      return "endpoints[" .. (j - 1) .. "]", "must be an object"
    end
    local address = ep.address
    if type(address) ~= "string" or address == "" then
      return "endpoints[" .. (j - 1) .. "].address", "must be a non-empty string"
    end
    local ok = valid[address]
    if ok == nil then
      ok = util.valid_address(address)
      valid[address] = ok
    end
    if not ok then
      return "endpoints[" .. (j - 1) .. "].address", address .. " is neither an IP address nor a DNS name"
    end
    local port = ep.port
    if (type(port) ~= "number" and type(port) ~= "string") or not util.port(port) then
      return "endpoints[" .. (j - 1) .. "].port", "must be a number or numeric string in 1..65535"
    end
  end
  return nil
end

-- check_backend returns the path (below the backend) and reason of the
-- first bad field of b.
local function check_backend(b, valid)
  if type(b.name) ~= "string" or b.name == "" then
    return "name", "must be a non-empty string"
  end
  if not is_null(b.endpoints) then
    local path, err = check_endpoints(b.endpoints, valid)
    if path then
      return path, err
    end
  end
  local f, err = fields(b, BACKEND_FIELDS)
  if f then
    return f, err
  end
  local sa = b.sessionAffinityConfig
  if not is_null(sa) then
    f, err = fields(sa, AFFINITY_FIELDS)
    if f then
      return "sessionAffinityConfig." .. f, err
    end
    if not is_null(sa.cookieSessionAffinity) then
      f, err = fields(sa.cookieSessionAffinity, COOKIE_FIELDS)
      if f then
        return "sessionAffinityConfig.cookieSessionAffinity." .. f, err
      end
    end
  end
  if not is_null(b.upstreamHashByConfig) then
    f, err = fields(b.upstreamHashByConfig, HASH_FIELDS)
    if f then
      return "upstreamHashByConfig." .. f, err
    end
  end
  if not is_null(b.trafficShapingPolicy) then
    f, err = fields(b.trafficShapingPolicy, POLICY_FIELDS)
    if f then
      return "trafficShapingPolicy." .. f, err
    end
  end
  return nil
end

-- decode_entry decodes the element of the JSON array body that spans
-- [first, last]; nil and a message when it is not JSON (what and i name
-- it). The callers loop over a payload's entries themselves, with the
-- collector kept close behind (util.tight_gc): each entry is garbage once
-- checked. They pass what they need as arguments: a closure over a payload
-- that LuaJIT compiles may keep the payload alive after the call.
local function decode_entry(body, first, last, what, i)
  local entry, derr = cjson.decode(string_sub(body, first, last))
  if entry == nil then
    return nil, "invalid JSON: " .. what .. "[" .. (i - 1) .. "]: " .. tostring(derr)
  end
  return entry
end

-- invalid_array returns the message for a body that jsonscan does not
-- take for one JSON array: cjson's reason when it does not decode.
local function invalid_array(what, body)
  if util.first_char(body) ~= "[" then
    return what .. ": the body must be a JSON array"
  end
  local _, derr = cjson.decode(body)
  return what .. ": invalid JSON: " .. tostring(derr or "not one JSON array")
end

-- backends checks a POST /configuration/backends body, one backend at a
-- time (each decoded on its own: see jsonscan.lua). It returns the name of
-- each entry (false for an entry without one), in order, and the list of
-- the entries to drop, each {index = i (1-based), name = the entry's name
-- or nil, reason = …, duplicate = true for a repeated name}:
-- an entry that is not an object, has no name, repeats the name of an
-- earlier entry, or has a bad field. It returns nil and a message when the
-- body as a whole is unusable: not JSON, not an array, or an array in
-- which no entry has a name (nothing could be applied or named).
function _M.backends(body)
  local starts, ends = jsonscan.array(body)
  if not starts then
    return nil, invalid_array("backends", body)
  end
  local names, seen = {}, {}
  local bad = {}
  local named = 0
  local valid = {} -- address -> whether it is one (check_endpoints)
  local gc = util.tight_gc()
  for i = 1, #starts do
    local b, err = decode_entry(body, starts[i], ends[i], "backends", i)
    if b == nil then
      util.restore_gc(gc)
      return nil, "backends: " .. err
    end
    local name = util.is_object(b) and b.name
    if type(name) ~= "string" or name == "" then
      name = nil
    else
      named = named + 1
    end
    local path, reason, duplicate
    if not util.is_object(b) then
      path, reason = "", "must be an object"
    elseif name and seen[name] then
      path, reason, duplicate = "name", "duplicate backend " .. name .. " (the first one is used)", true
    else
      path, reason = check_backend(b, valid)
    end
    if path then
      local where = "backends[" .. (i - 1) .. "]"
      if path ~= "" then
        where = where .. "." .. path
      end
      bad[#bad + 1] = { index = i, name = name, reason = where .. ": " .. reason, duplicate = duplicate }
    end
    if name then
      seen[name] = true
    end
    names[i] = name or false
  end
  util.restore_gc(gc)
  if #starts > 0 and named == 0 then
    return nil, "backends: no entry has a name: " .. bad[1].reason
  end
  return names, bad
end

-- general checks a POST /configuration/general body: a JSON object.
function _M.general(body)
  local general, derr = cjson.decode(body)
  if general == nil then
    return nil, "general: invalid JSON: " .. tostring(derr)
  end
  if util.first_char(body) ~= "{" or not util.is_object(general) then
    return nil, "general: the body must be a JSON object"
  end
  return general
end

-- a_map checks that v is absent, null or a JSON object, and returns it
-- as a table.
local function a_map(v, field)
  if is_null(v) then
    return {}
  end
  if not util.is_object(v) then
    return nil, "servers: " .. field .. ": must be an object"
  end
  return v
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    keys[#keys + 1] = k
  end
  table_sort(keys)
  return keys
end

-- servers checks a POST /configuration/servers body. It returns the host
-- map (host names lower-cased) and the certificate map of the entries
-- whose value is a non-empty string, and the list of the other entries,
-- each {kind = "server" or "certificate", name = …, reason = …}, in a
-- stable order. A host spelt twice (in another case) keeps its first
-- spelling in sorted order. It returns nil, nil and a message when the
-- body is not a JSON object or servers or certificates is present and not
-- an object. Whether a PEM parses is checked by configuration.lua.
function _M.servers(body)
  local payload, derr = cjson.decode(body)
  if payload == nil then
    return nil, nil, "servers: invalid JSON: " .. tostring(derr)
  end
  if util.first_char(body) ~= "{" or not util.is_object(payload) then
    return nil, nil, "servers: the body must be a JSON object"
  end
  local servers, certs, err
  servers, err = a_map(payload.servers, "servers")
  if not servers then
    return nil, nil, err
  end
  certs, err = a_map(payload.certificates, "certificates")
  if not certs then
    return nil, nil, err
  end
  local bad = {}
  local good_certs = {}
  for _, id in ipairs(sorted_keys(certs)) do
    local pem = certs[id]
    if id == "" then
      bad[#bad + 1] = { kind = "certificate", name = id, reason = "certificates: the ID must not be empty" }
    elseif type(pem) ~= "string" or pem == "" then
      bad[#bad + 1] = { kind = "certificate", name = id, reason = "certificates[" .. id .. "]: must be a non-empty string" }
    else
      good_certs[id] = pem
    end
  end
  local hosts = {}
  for _, host in ipairs(sorted_keys(servers)) do
    local id = servers[host]
    local h = string_lower(host)
    if host == "" then
      bad[#bad + 1] = { kind = "server", name = host, reason = "servers: the host name must not be empty" }
    elseif type(id) ~= "string" or id == "" then
      bad[#bad + 1] = { kind = "server", name = host, reason = "servers[" .. host .. "]: must be a non-empty string" }
    elseif hosts[h] and hosts[h] ~= id then
      bad[#bad + 1] = { kind = "server", name = host,
        reason = "servers[" .. host .. "]: another spelling of this host names another certificate (the first is used)" }
    else
      hosts[h] = id
    end
  end
  return hosts, good_certs, bad
end

-- Routes (--routing=lua, router.lua): POST /configuration/routes carries
-- {"hosts": [entry, …], "delete": [host, …]}; each entry is checked on its
-- own (see CONTRACT.md) and the router reads only what passed.
local cidr = require("cidr")
local ngx_re_find = ngx.re.find

-- FILE_PATH is model.FilePath of a name render makes (model.ValidFileName):
-- never a path out of files/.
local FILE_PATH = "^files/[a-z0-9-][a-z0-9.-]*/[a-z0-9-][a-z0-9.-]*$"

local MATCH_KINDS = { exact = true, prefix = true, regex = true, regexCase = true, prefixNoRegex = true }
local REDIRECT_CODES = { [301] = true, [302] = true, [303] = true, [307] = true, [308] = true }
-- ROUTE_FLAGS are the route settings that are true or false when given.
local ROUTE_FLAGS = { "streamBody", "serverName", "rewriteLog", "clientCertHeaders", "passClientCert" }

-- a_header_list accepts [{name, value, vars}, …]: a header name made of
-- token characters, a string value.
local function a_header_list(v)
  if not util.is_array(v) then
    return "must be an array"
  end
  for _, h in ipairs(v) do
    if not util.is_object(h) or type(h.name) ~= "string" or not string.match(h.name, "^[%w!#$%%&'*+.^_`|~-]+$")
        or type(h.value) ~= "string" or (h.vars ~= nil and type(h.vars) ~= "boolean") then
      return "must hold {name: a header name, value: a string, vars: true or false}"
    end
  end
end

local PATH_FIELDS = {
  { "path", a_string }, { "pathType", a_string }, { "regex", a_boolean },
  { "backend", a_string }, { "defaultBackend", a_string }, { "fallback", a_boolean },
  { "namespace", a_string }, { "ingress", a_string }, { "service", a_string },
  { "servicePort", a_string }, { "locationPath", a_string }, { "autoRedirect", a_boolean },
  { "accessLogOff", a_boolean },
  { "settings", an_object },
}
local SETTINGS_FIELDS = {
  { "httpsRedirect", a_count }, { "preserveTrailingSlash", a_boolean }, { "denied", a_boolean },
  { "status", a_count }, { "portInRedirect", a_boolean },
  { "redirect", an_object }, { "rewriteTarget", a_string }, { "upstreamVhost", a_string },
  { "xForwardedPrefix", a_string }, { "timeouts", an_object }, { "allow", names_list },
  { "deny", names_list }, { "denyAll", a_boolean }, { "cors", an_object },
  { "responseHeaders", a_header_list }, { "bodyLimit", a_count },
  { "limitRate", a_count }, { "limitRateAfter", a_count }, { "limits", an_object },
  { "basicAuth", an_object }, { "errorPages", an_object }, { "hideHeaders", names_list },
}
local LIMIT_FIELDS = {
  { "zone", a_string }, { "rps", a_count }, { "rpsBurst", a_count }, { "rpm", a_count },
  { "rpmBurst", a_count }, { "connections", a_count }, { "exempt", names_list },
  { "reqStatus", a_count }, { "connStatus", a_count },
}
local TIMEOUT_FIELDS = { { "connect", a_count }, { "send", a_count }, { "read", a_count } }
local CORS_FIELDS = {
  { "allowOrigins", names_list }, { "allowMethods", a_string }, { "allowHeaders", a_string },
  { "exposeHeaders", a_string }, { "allowCredentials", a_boolean }, { "maxAge", a_count },
}

-- check_matcher returns the reason why m is not a usable matcher.
local function check_matcher(m)
  if not util.is_object(m) then
    return "must be an object"
  end
  if not MATCH_KINDS[m.kind] then
    return "kind must be exact, prefix, regex, regexCase or prefixNoRegex"
  end
  if type(m.value) ~= "string" or m.value == "" then
    return "value must be a non-empty string"
  end
  -- ngx.re is not there for a preload (init_by_lua): the entry was
  -- checked when it was posted, and the router logs a regex that fails.
  if (m.kind == "regex" or m.kind == "regexCase") and ngx.get_phase() ~= "init" then
    local _, _, err = ngx_re_find("", m.value, m.kind == "regex" and "ij" or "j")
    if err then
      return "value: the regex does not compile: " .. tostring(err)
    end
  end
end

-- check_return returns the field and reason of what is wrong with ret, a
-- "return" line: a code from 200 to 599 or 444 (nginx's own 444 closes
-- the connection), a text, which a redirect needs.
local function check_return(ret)
  if type(ret) ~= "table" or type(ret.code) ~= "number" or ret.code % 1 ~= 0 or ret.code < 200 or ret.code > 599 and ret.code ~= 444 then
    return "code", "must be an HTTP status from 200 to 599, or 444"
  end
  if not is_null(ret.text) and type(ret.text) ~= "string" then
    return "text", "must be a string"
  end
  if REDIRECT_CODES[ret.code] and (type(ret.text) ~= "string" or ret.text == "") then
    return "text", "must be the URL of the redirect"
  end
end

local REWRITE_FLAGS = { [""] = true, last = true, ["break"] = true, redirect = true, permanent = true }

-- check_rewrite returns the field (".regex" …) and reason of what is wrong
-- with rw, a line of RouteSettings.Rewrites: a return, or a regex that
-- compiles, a replacement and a flag of nginx's rewrite.
local function check_rewrite(rw)
  if not util.is_object(rw) then
    return "", "must be an object"
  end
  if not is_null(rw["return"]) then
    local f, err = check_return(rw["return"])
    if f then
      return ".return." .. f, err
    end
    return
  end
  if type(rw.regex) ~= "string" or rw.regex == "" then
    return ".regex", "must be a non-empty string"
  end
  if ngx.get_phase() ~= "init" then
    local _, _, err = ngx_re_find("", rw.regex, "j")
    if err then
      return ".regex", "the regex does not compile: " .. tostring(err)
    end
  end
  if type(rw.replacement) ~= "string" or rw.replacement == "" then
    return ".replacement", "must be a non-empty string"
  end
  if not is_null(rw.flag) and not REWRITE_FLAGS[rw.flag] then
    return ".flag", "must be last, break, redirect or permanent"
  end
end

-- check_rewrites returns the path and reason of the first bad line of a
-- rewrites array (a route's configuration-snippet, a host's
-- server-snippet).
local function check_rewrites(list)
  if not util.is_array(list) then
    return "rewrites", "must be an array"
  end
  for i, rw in ipairs(list) do
    local f, err = check_rewrite(rw)
    if f then
      return "rewrites[" .. (i - 1) .. "]" .. f, err
    end
  end
end

-- check_settings returns the path (below settings) and reason of the first
-- bad field of s.
local function check_settings(s)
  local f, err = fields(s, SETTINGS_FIELDS)
  if f then
    return f, err
  end
  local r = s.redirect
  if not is_null(r) then
    if type(r.url) ~= "string" or r.url == "" then
      return "redirect.url", "must be a non-empty string"
    end
    if not REDIRECT_CODES[r.code] then
      return "redirect.code", "must be 301, 302, 303, 307 or 308"
    end
  end
  if not is_null(s.timeouts) then
    f, err = fields(s.timeouts, TIMEOUT_FIELDS)
    if f then
      return "timeouts." .. f, err
    end
  end
  if not is_null(s.cors) then
    f, err = fields(s.cors, CORS_FIELDS)
    if f then
      return "cors." .. f, err
    end
  end
  if not is_null(s.shape) then
    -- model.LocationShape's Location: the error pages' key and (or) the
    -- proxy tuning's hash
    local sh = s.shape
    if type(sh) ~= "string" or not (string.match(sh, "^@kubectl_ingress_errors_[in]_[%d_]+$")
        or string.match(sh, "^@kubectl_ingress_shape_%x+$")) then
      return "shape", "must be a shape location: @kubectl_ingress_errors_<i|n>_<codes> or @kubectl_ingress_shape_<hex>"
    end
  end
  if not is_null(s.authScope) and type(s.authScope) ~= "string" then
    return "authScope", "must be a string"
  end
  local ret = s["return"]
  if not is_null(ret) then
    f, err = check_return(ret)
    if f then
      return "return." .. f, err
    end
  end
  if not is_null(s.rewrites) then
    f, err = check_rewrites(s.rewrites)
    if f then
      return f, err
    end
  end
  if not is_null(s.matchCN) and (type(s.matchCN) ~= "string" or s.matchCN == "") then
    return "matchCN", "must be a non-empty string"
  end
  for _, flag in ipairs(ROUTE_FLAGS) do
    if not is_null(s[flag]) and type(s[flag]) ~= "boolean" then
      return flag, "must be true or false"
    end
  end
  if not is_null(s.errorPages) then
    local ep = s.errorPages
    if type(ep.backend) ~= "string" then
      return "errorPages.backend", "must be a string"
    end
  end
  if not is_null(s.basicAuth) then
    local ba = s.basicAuth
    if type(ba.realm) ~= "string" or ba.realm == "off" or string.find(ba.realm, "[%c\"\\$]") then
      return "basicAuth.realm", "must be a string of visible characters without quote, backslash or $, not \"off\""
    end
    if type(ba.userFile) ~= "string" or not string.match(ba.userFile, FILE_PATH) then
      return "basicAuth.userFile", "must be files/<dir>/<name> of lower-case letters, digits, '-' and '.'"
    end
  end
  if not is_null(s.limits) then
    f, err = fields(s.limits, LIMIT_FIELDS)
    if f then
      return "limits." .. f, err
    end
    if not is_null(s.limits.exempt) then
      for j, net in ipairs(s.limits.exempt) do
        local _, perr = cidr.parse(net)
        if perr then
          return "limits.exempt[" .. (j - 1) .. "]", perr
        end
      end
    end
    for _, code in ipairs({ "reqStatus", "connStatus" }) do
      local v = tonumber(s.limits[code])
      if v and v ~= 0 and (v < 400 or v > 599) then
        return "limits." .. code, "must be an HTTP status from 400 to 599"
      end
    end
  end
  for _, list in ipairs({ "allow", "deny" }) do
    if not is_null(s[list]) then
      for j, net in ipairs(s[list]) do
        local _, perr = cidr.parse(net)
        if perr then
          return list .. "[" .. (j - 1) .. "]", perr
        end
      end
    end
  end
  local code = s.httpsRedirect
  if not is_null(code) and code ~= 0 and code ~= "" and not REDIRECT_CODES[tonumber(code)] then
    return "httpsRedirect", "must be 0, 301, 302, 303, 307 or 308"
  end
end

-- route_host_error tells why h cannot be a host key: an exact host, a "*."
-- wildcard or "_", lower case.
local function route_host_error(h)
  if type(h) ~= "string" or h == "" then
    return "must be a non-empty string"
  end
  if h ~= string_lower(h) then
    return "must be lower case"
  end
  if h ~= "_" and not string.match(h, "^[%w%-%._*]+$") then
    return "must be a host name, a *. wildcard or _"
  end
end

-- CLIENT_VERIFY are the values of clientAuth.verify (ssl_verify_client).
local CLIENT_VERIFY = { on = true, off = true, optional = true, optional_no_ca = true }

-- check_client_auth returns the path (below clientAuth) and reason of the
-- first bad field of a host's client certificate settings.
local function check_client_auth(ca)
  if not util.is_object(ca) then
    return "", "must be an object"
  end
  if type(ca.caFile) ~= "string" or not string.match(ca.caFile, FILE_PATH) then
    return ".caFile", "must be files/<dir>/<name> of lower-case letters, digits, '-' and '.'"
  end
  if not is_null(ca.crlFile) and (type(ca.crlFile) ~= "string" or not string.match(ca.crlFile, FILE_PATH)) then
    return ".crlFile", "must be files/<dir>/<name> of lower-case letters, digits, '-' and '.'"
  end
  if not CLIENT_VERIFY[ca.verify] then
    return ".verify", "must be on, off, optional or optional_no_ca"
  end
  if type(ca.depth) ~= "number" or ca.depth < 1 or ca.depth > 100 or ca.depth % 1 ~= 0 then
    return ".depth", "must be an integer from 1 to 100"
  end
  local page = ca.errorPage
  if not is_null(page) and (type(page) ~= "string" or not (string.match(string_lower(page), "^https?://[^%s%c]+$")
      or string.match(page, "^/[^%s%c]*$"))) then
    return ".errorPage", "must be an http:// or https:// URL or a path"
  end
end

-- client_auth_key is the value configuration.lua stores as "t:<host>"
-- for the handshake (client_auth.lua), nil when the entry asks for no
-- client certificate.
local function client_auth_key(e)
  local ca = e.clientAuth
  if is_null(ca) or ca.verify == "off" then
    return nil
  end
  local t = ca.caFile .. " " .. ca.verify .. " " .. string.format("%d", ca.depth)
  if not is_null(ca.crlFile) and ca.crlFile ~= "" then
    t = t .. " " .. ca.crlFile
  end
  return t
end

-- check_tls returns the path (below tls) and reason of the first bad field
-- of a host's ssl-ciphers and ssl-prefer-server-ciphers.
local function check_tls(t)
  if not util.is_object(t) then
    return "", "must be an object"
  end
  local list = t.ciphers
  if not is_null(list) then
    -- the annotation's bytes (annotations.valueCipherList): OpenSSL's
    -- cipher list syntax, nothing an nginx token could end on
    if type(list) ~= "string" or #list > 1024 or not string.match(list, "^[%w%+%-!:_@=,%.]+$") then
      return ".ciphers", "must be an OpenSSL cipher list"
    end
    local err = ssl_ciphers.check(list)
    if err then
      return ".ciphers", err
    end
  end
  if not is_null(t.preferServerCiphers) and type(t.preferServerCiphers) ~= "boolean" then
    return ".preferServerCiphers", "must be true or false"
  end
end

-- check_route returns the path (below the entry) and reason of the first
-- bad field of a host entry.
local function check_route(e)
  if type(e.version) ~= "string" or e.version == "" then
    return "version", "must be a non-empty string"
  end
  if not is_null(e.clientAuth) then
    local f, err = check_client_auth(e.clientAuth)
    if f then
      return "clientAuth" .. f, err
    end
  end
  if not is_null(e.tls) then
    local f, err = check_tls(e.tls)
    if f then
      return "tls" .. f, err
    end
  end
  if not is_null(e.appRoot) and type(e.appRoot) ~= "string" then
    return "appRoot", "must be a string"
  end
  if not is_null(e.rewrites) then
    local f, err = check_rewrites(e.rewrites)
    if f then
      return f, err
    end
  end
  if not is_null(e.portInRedirect) and type(e.portInRedirect) ~= "boolean" then
    return "portInRedirect", "must be true or false"
  end
  if not is_null(e.aliasOf) then
    -- a server-alias: the router serves it with the entry of aliasOf
    local err = route_host_error(e.aliasOf)
    if err or e.aliasOf == "_" or e.aliasOf == e.host then
      return "aliasOf", err or "must name another host"
    end
    if not is_null(e.paths) and (not util.is_array(e.paths) or #e.paths > 0) then
      return "paths", "must be empty in an alias"
    end
    return
  end
  if not util.is_array(e.paths) or #e.paths == 0 then
    return "paths", "must be a non-empty array"
  end
  for i, p in ipairs(e.paths) do
    local where = "paths[" .. (i - 1) .. "]"
    if not util.is_object(p) then
      return where, "must be an object"
    end
    local f, err = fields(p, PATH_FIELDS)
    if f then
      return where .. "." .. f, err
    end
    if not util.is_array(p.matchers) or #p.matchers == 0 then
      return where .. ".matchers", "must be a non-empty array"
    end
    for j, m in ipairs(p.matchers) do
      err = check_matcher(m)
      if err then
        return where .. ".matchers[" .. (j - 1) .. "]", err
      end
    end
    if not is_null(p.settings) then
      f, err = check_settings(p.settings)
      if f then
        return where .. ".settings." .. f, err
      end
    end
  end
end

-- payload_members returns the value spans of the members of the JSON
-- object body by their decoded key (the last one of a repeated key, as
-- cjson has it); nil and a message when body is not one JSON object.
local function payload_members(what, body)
  local members = jsonscan.members(body)
  if not members then
    if util.first_char(body) ~= "{" then
      return nil, what .. ": the body must be a JSON object"
    end
    local _, derr = cjson.decode(body)
    return nil, what .. ": invalid JSON: " .. tostring(derr or "not one JSON object")
  end
  local out = {}
  for _, m in ipairs(members) do
    local key = cjson.decode(string_sub(body, m[1], m[2]))
    if type(key) ~= "string" then
      return nil, what .. ": invalid JSON: a member's key is not a string"
    end
    out[key] = { m[3], m[4] }
  end
  return out
end

-- array_member returns the element spans of the member name of a payload
-- (see payload_members): empty lists when it is absent or null; nil and a
-- message when it is not an array, or its JSON is invalid.
local function array_member(what, body, members, name)
  local span = members[name]
  if not span then
    return {}, {}
  end
  local starts, ends = jsonscan.array_at(body, span[1], span[2])
  if starts then
    return starts, ends
  end
  local value, derr = cjson.decode(string_sub(body, span[1], span[2]))
  if value == nil then
    return nil, what .. ": invalid JSON: " .. name .. ": " .. tostring(derr)
  end
  if is_null(value) then
    return {}, {}
  end
  return nil, what .. ": " .. name .. " must be an array"
end

-- routes checks a POST /configuration/routes body, one host entry at a
-- time (each decoded on its own: see jsonscan.lua). It returns the list of
-- good entries {index = i (1-based), host = …, version = …, first = …,
-- last = …, client_auth = …, tls = …} (where the entry's JSON is in body;
-- its "t:" value, client_auth_key; its "s:" value, ssl_ciphers.key), the list of hosts to delete, and the bad
-- entries {index, name (the host or nil), reason, duplicate}; or nil, nil,
-- nil and a message when the body is not a JSON object, hosts or delete is
-- not an array, or an entry is not JSON.
function _M.routes(body)
  local members, merr = payload_members("routes", body)
  if not members then
    return nil, nil, nil, merr
  end
  -- every other member is decoded too: the body must be JSON throughout
  for name, span in pairs(members) do
    if name ~= "hosts" and name ~= "delete" and cjson.decode(string_sub(body, span[1], span[2])) == nil then
      return nil, nil, nil, "routes: invalid JSON: " .. name
    end
  end
  local starts, ends = array_member("routes", body, members, "hosts")
  if not starts then
    return nil, nil, nil, ends
  end
  local dstarts, dends = array_member("routes", body, members, "delete")
  if not dstarts then
    return nil, nil, nil, dends
  end
  local good, bad, seen, gone = {}, {}, {}, {}
  for i = 1, #dstarts do
    local h, derr = decode_entry(body, dstarts[i], dends[i], "delete", i)
    if h == nil then
      return nil, nil, nil, "routes: " .. derr
    end
    local herr = route_host_error(h)
    if herr then
      bad[#bad + 1] = { index = i, name = type(h) == "string" and h or nil, reason = "delete[" .. (i - 1) .. "]: " .. herr }
    else
      gone[#gone + 1] = h
    end
  end
  local gc = util.tight_gc()
  for i = 1, #starts do
    local e, derr = decode_entry(body, starts[i], ends[i], "hosts", i)
    if e == nil then
      util.restore_gc(gc)
      return nil, nil, nil, "routes: " .. derr
    end
    local where = "hosts[" .. (i - 1) .. "]"
    local host = util.is_object(e) and e.host or nil
    local path, reason, duplicate
    if not util.is_object(e) then
      path, reason = where, "must be an object"
    else
      reason = route_host_error(host)
      if reason then
        path = where .. ".host"
      elseif seen[host] then
        path, reason, duplicate = where .. ".host", "duplicate host " .. host .. " (the first one is used)", true
      else
        local p
        p, reason = check_route(e)
        if p then
          path = where .. "." .. p
        end
      end
    end
    if type(host) ~= "string" or host == "" then
      host = nil
    end
    if path then
      bad[#bad + 1] = { index = i, name = host, reason = path .. ": " .. reason, duplicate = duplicate }
    else
      good[#good + 1] = { index = i, host = host, version = e.version, first = starts[i], last = ends[i],
        client_auth = client_auth_key(e), tls = ssl_ciphers.key(e.tls) }
    end
    if host then
      seen[host] = true
    end
  end
  util.restore_gc(gc)
  return good, gone, bad
end

return _M
