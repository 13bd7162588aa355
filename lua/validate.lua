-- validate: checks the shape of the payloads of the configuration API
-- before anything is stored (see CONTRACT.md). Each function takes the raw
-- body and returns the decoded value, or nil and a message naming the first
-- bad field. Fields that the Lua modules read must have the documented type
-- (or be absent or null); other fields are free, so that ingress-nginx's
-- controller, which sends more, is accepted.
local cjson = require("cjson.safe")
local util = require("util")

local type = type
local ipairs = ipairs
local pairs = pairs
local tostring = tostring
local tonumber = tonumber
local math_floor = math.floor
local string_lower = string.lower

local _M = {}

local function is_null(v)
  return v == nil or v == cjson.null
end

-- optional checks a field that may be absent or null; check(v) returns an
-- error suffix or nil.
local function optional(obj, field, at, check)
  local v = obj[field]
  if is_null(v) then
    return nil
  end
  local err = check(v)
  if err then
    return at .. "." .. field .. ": " .. err
  end
  return nil
end

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
  if type(v) == "string" and v == "" then
    return nil
  end
  local n = tonumber(v)
  if (type(v) ~= "number" and type(v) ~= "string") or not n or n < 0 or n ~= math_floor(n) then
    return "must be a whole number >= 0"
  end
end

local function check_endpoints(b, at)
  local endpoints = b.endpoints
  if is_null(endpoints) then
    return nil
  end
  if not util.is_array(endpoints) then
    return at .. ".endpoints: must be an array"
  end
  for j, ep in ipairs(endpoints) do
    local eat = at .. ".endpoints[" .. (j - 1) .. "]"
    if not util.is_object(ep) then
      return eat .. ": must be an object"
    end
    if type(ep.address) ~= "string" or ep.address == "" then
      return eat .. ".address: must be a non-empty string"
    end
    if not util.valid_address(ep.address) then
      return eat .. ".address: " .. ep.address .. " is neither an IP address nor a DNS name"
    end
    if (type(ep.port) ~= "number" and type(ep.port) ~= "string") or not util.port(ep.port) then
      return eat .. ".port: must be a number or numeric string in 1..65535"
    end
  end
  return nil
end

local function check_affinity(b, at)
  local err = optional(b, "sessionAffinityConfig", at, an_object)
  if err or is_null(b.sessionAffinityConfig) then
    return err
  end
  local sa, sat = b.sessionAffinityConfig, at .. ".sessionAffinityConfig"
  err = optional(sa, "name", sat, a_string) or optional(sa, "mode", sat, a_string)
      or optional(sa, "cookieSessionAffinity", sat, an_object)
  if err or is_null(sa.cookieSessionAffinity) then
    return err
  end
  local c, cat = sa.cookieSessionAffinity, sat .. ".cookieSessionAffinity"
  for _, f in ipairs({ "name", "path", "domain", "samesite" }) do
    err = optional(c, f, cat, a_string)
    if err then
      return err
    end
  end
  for _, f in ipairs({ "expires", "maxage" }) do
    err = optional(c, f, cat, a_count)
    if err then
      return err
    end
  end
  for _, f in ipairs({ "secure", "change_on_failure", "conditional_samesite_none" }) do
    err = optional(c, f, cat, a_boolean)
    if err then
      return err
    end
  end
  return optional(c, "locations", cat, an_object)
end

local function check_hash(b, at)
  local err = optional(b, "upstreamHashByConfig", at, an_object)
  if err or is_null(b.upstreamHashByConfig) then
    return err
  end
  local h, hat = b.upstreamHashByConfig, at .. ".upstreamHashByConfig"
  return optional(h, "upstream-hash-by", hat, a_string)
      or optional(h, "upstream-hash-by-subset", hat, a_boolean)
      or optional(h, "upstream-hash-by-subset-size", hat, a_count)
end

local function check_canary(b, at)
  local err = optional(b, "trafficShapingPolicy", at, an_object)
  if err then
    return err
  end
  if not is_null(b.trafficShapingPolicy) then
    local p, pat = b.trafficShapingPolicy, at .. ".trafficShapingPolicy"
    for _, f in ipairs({ "weight", "weightTotal" }) do
      err = optional(p, f, pat, a_count)
      if err then
        return err
      end
    end
    for _, f in ipairs({ "header", "headerValue", "headerPattern", "cookie" }) do
      err = optional(p, f, pat, a_string)
      if err then
        return err
      end
    end
  end
  return optional(b, "alternativeBackends", at, function(v)
    if not util.is_array(v) then
      return "must be an array"
    end
    for _, name in ipairs(v) do
      if type(name) ~= "string" or name == "" then
        return "must hold non-empty strings"
      end
    end
  end)
end

-- backends checks a POST /configuration/backends body.
function _M.backends(body)
  if util.first_char(body) ~= "[" then
    return nil, "backends: the body must be a JSON array"
  end
  local backends, derr = cjson.decode(body)
  if backends == nil then
    return nil, "backends: invalid JSON: " .. tostring(derr)
  end
  if not util.is_array(backends) then
    return nil, "backends: the body must be a JSON array"
  end
  local names = {}
  for i, b in ipairs(backends) do
    local at = "backends[" .. (i - 1) .. "]"
    if not util.is_object(b) then
      return nil, at .. ": must be an object"
    end
    if type(b.name) ~= "string" or b.name == "" then
      return nil, at .. ".name: must be a non-empty string"
    end
    if names[b.name] then
      return nil, at .. ".name: duplicate backend " .. b.name
    end
    names[b.name] = true
    local err = check_endpoints(b, at)
        or optional(b, "load-balance", at, a_string)
        or optional(b, "service", at, an_object)
        or optional(b, "noServer", at, a_boolean)
        or check_affinity(b, at)
        or check_hash(b, at)
        or check_canary(b, at)
    if err then
      return nil, err
    end
  end
  return backends
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

-- string_map checks that v is absent, null or a JSON object of non-empty
-- strings to non-empty strings, and returns it as a table.
local function string_map(v, field)
  if is_null(v) then
    return {}
  end
  if not util.is_object(v) then
    return nil, "servers: " .. field .. ": must be an object"
  end
  for k, s in pairs(v) do
    if k == "" or type(s) ~= "string" or s == "" then
      return nil, "servers: " .. field .. "[" .. k .. "]: must be a non-empty string"
    end
  end
  return v
end

-- servers checks a POST /configuration/servers body and returns the host
-- map (host names lower-cased) and the certificate map.
function _M.servers(body)
  local payload, derr = cjson.decode(body)
  if payload == nil then
    return nil, nil, "servers: invalid JSON: " .. tostring(derr)
  end
  if util.first_char(body) ~= "{" or not util.is_object(payload) then
    return nil, nil, "servers: the body must be a JSON object"
  end
  local servers, certs, err
  servers, err = string_map(payload.servers, "servers")
  if not servers then
    return nil, nil, err
  end
  certs, err = string_map(payload.certificates, "certificates")
  if not certs then
    return nil, nil, err
  end
  local hosts = {}
  for host, id in pairs(servers) do
    local h = string_lower(host)
    if hosts[h] and hosts[h] ~= id then
      return nil, nil, "servers: servers[" .. host .. "]: another spelling of this host names another certificate"
    end
    hosts[h] = id
  end
  return hosts, certs
end

return _M
