-- configuration: the HTTP API of the status server (ingress-nginx
-- compatible), run by content_by_lua in `location /configuration`:
--
--   GET|POST /configuration/backends   backends JSON array (+ a version counter)
--   GET|POST /configuration/general    general settings JSON object
--   POST     /configuration/servers    {"servers": {host: id}, "certificates": {id: PEM}}
--   GET      /configuration/certs?hostname=H   the PEM served for H
--   GET      /configuration/checksum   md5 of the nginx.conf these workers loaded
--
-- A POST is validated in full before anything is stored: a bad body answers
-- 400 with a message and leaves the last good data in place. Unknown paths
-- answer 404, a wrong method 405. See CONTRACT.md.
local cjson = require("cjson.safe")
local util = require("util")
local certificate = require("certificate")

local ngx = ngx
local io_open = io.open
local ipairs = ipairs
local pairs = pairs
local type = type
local tostring = tostring
local string_lower = string.lower
local table_sort = table.sort
local table_concat = table.concat

local TEXT = "text/plain; charset=utf-8"
local JSON = "application/json"

local _M = {}

-- checksum is computed once by init() in the master (init_by_lua) and
-- inherited by the workers it forks, so it always names the config that the
-- worker answering the request was started with; a reload makes new workers
-- with the new value while the old ones drain.
local checksum = ""

-- init runs in init_by_lua: it computes the md5 hex of $prefix/nginx.conf
-- (the empty string when that file cannot be read).
function _M.init()
  checksum = ""
  local f = io_open(ngx.config.prefix() .. "nginx.conf", "rb")
  if not f then
    return
  end
  local data = f:read("*a")
  f:close()
  if data then
    checksum = ngx.md5(data)
  end
end

local function respond(status, body, content_type)
  ngx.status = status
  ngx.header["Content-Type"] = content_type or TEXT
  if body and body ~= "" then
    ngx.print(body)
  end
end

local function bad_request(msg)
  return respond(ngx.HTTP_BAD_REQUEST, msg .. "\n")
end

-- read_body returns the request body, also when nginx buffered it to a file.
local function read_body()
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  if not body then
    local path = ngx.req.get_body_file()
    if path then
      local f, err = io_open(path, "rb")
      if not f then
        return nil, "cannot read the buffered request body: " .. tostring(err)
      end
      body = f:read("*a")
      f:close()
    end
  end
  if not body or body == "" then
    return nil, "empty request body"
  end
  return body
end

local function is_null(v)
  return v == nil or v == cjson.null
end

-- validate_backends checks the shape of a backends payload (see CONTRACT.md)
-- and returns nil or a message naming the first bad field.
local function validate_backends(body)
  if util.first_char(body) ~= "[" then
    return "backends: the body must be a JSON array"
  end
  local backends, err = cjson.decode(body)
  if backends == nil then
    return "backends: invalid JSON: " .. tostring(err)
  end
  if not util.is_array(backends) then
    return "backends: the body must be a JSON array"
  end
  local names = {}
  for i, b in ipairs(backends) do
    local at = "backends[" .. (i - 1) .. "]"
    if not util.is_object(b) then
      return at .. ": must be an object"
    end
    if type(b.name) ~= "string" or b.name == "" then
      return at .. ".name: must be a non-empty string"
    end
    if names[b.name] then
      return at .. ".name: duplicate backend " .. b.name
    end
    names[b.name] = true
    local endpoints = b.endpoints
    if not is_null(endpoints) then
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
        if (type(ep.port) ~= "number" and type(ep.port) ~= "string") or not util.port(ep.port) then
          return eat .. ".port: must be a number or numeric string in 1..65535"
        end
      end
    end
  end
  return nil
end

local function get_backends()
  local raw = ngx.shared.configuration_data:get("backends")
  return respond(ngx.HTTP_OK, raw or "[]", JSON)
end

local function post_backends()
  local body, err = read_body()
  if not body then
    return bad_request("backends: " .. err)
  end
  err = validate_backends(body)
  if err then
    return bad_request(err)
  end
  local dict = ngx.shared.configuration_data
  local ok, serr = dict:safe_set("backends", body)
  if not ok then
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "backends: cannot store: " .. tostring(serr) .. "\n")
  end
  local _, ierr = dict:incr("backends_version", 1, 0)
  if ierr then
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "backends: cannot bump the version: " .. tostring(ierr) .. "\n")
  end
  return respond(ngx.HTTP_CREATED)
end

local function get_general()
  local raw = ngx.shared.configuration_data:get("general")
  return respond(ngx.HTTP_OK, raw or "{}", JSON)
end

local function post_general()
  local body, err = read_body()
  if not body then
    return bad_request("general: " .. err)
  end
  local general, derr = cjson.decode(body)
  if general == nil then
    return bad_request("general: invalid JSON: " .. tostring(derr))
  end
  if util.first_char(body) ~= "{" or not util.is_object(general) then
    return bad_request("general: the body must be a JSON object")
  end
  local ok, serr = ngx.shared.configuration_data:safe_set("general", body)
  if not ok then
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "general: cannot store: " .. tostring(serr) .. "\n")
  end
  return respond(ngx.HTTP_CREATED)
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

-- store_all stores every entry of map in dict; safe_set never evicts other
-- entries to make room, it fails instead.
local function store_all(dict, map)
  for k, v in pairs(map) do
    local ok, err = dict:safe_set(k, v)
    if not ok then
      return nil, k .. ": " .. tostring(err)
    end
  end
  return true
end

-- delete_absent deletes the keys of dict that map does not hold.
local function delete_absent(dict, map)
  for _, k in ipairs(dict:get_keys(0)) do
    if map[k] == nil then
      dict:delete(k)
    end
  end
end

local function post_servers()
  local body, err = read_body()
  if not body then
    return bad_request("servers: " .. err)
  end
  local payload, derr = cjson.decode(body)
  if payload == nil then
    return bad_request("servers: invalid JSON: " .. tostring(derr))
  end
  if util.first_char(body) ~= "{" or not util.is_object(payload) then
    return bad_request("servers: the body must be a JSON object")
  end
  local servers, certs
  servers, err = string_map(payload.servers, "servers")
  if not servers then
    return bad_request(err)
  end
  certs, err = string_map(payload.certificates, "certificates")
  if not certs then
    return bad_request(err)
  end
  local hosts = {}
  for host, id in pairs(servers) do
    local h = string_lower(host)
    if hosts[h] and hosts[h] ~= id then
      return bad_request("servers: servers[" .. host .. "]: another spelling of this host names another certificate")
    end
    hosts[h] = id
  end
  -- New PEMs first, then the host map, then the stale entries: a handshake
  -- meanwhile sees the old or the new certificate, never none.
  local data = ngx.shared.certificate_data
  local index = ngx.shared.certificate_servers
  local ok, serr = store_all(data, certs)
  if ok then
    ok, serr = store_all(index, hosts)
  end
  if not ok then
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "servers: cannot store " .. serr .. "\n")
  end
  delete_absent(index, hosts)
  delete_absent(data, certs)
  return respond(ngx.HTTP_CREATED)
end

local function get_certs()
  local hostname = ngx.var.arg_hostname
  if not hostname or hostname == "" then
    return bad_request("certs: the hostname query parameter is required")
  end
  hostname = ngx.unescape_uri(hostname)
  local pem = certificate.lookup(hostname)
  if not pem then
    return respond(ngx.HTTP_NOT_FOUND, "no certificate for " .. hostname .. "\n")
  end
  return respond(ngx.HTTP_OK, pem)
end

local function get_checksum()
  return respond(ngx.HTTP_OK, checksum)
end

local routes = {
  ["/configuration/backends"] = { GET = get_backends, POST = post_backends },
  ["/configuration/general"] = { GET = get_general, POST = post_general },
  ["/configuration/servers"] = { POST = post_servers },
  ["/configuration/certs"] = { GET = get_certs },
  ["/configuration/checksum"] = { GET = get_checksum },
}

local function allowed(methods)
  local list = {}
  for m, _ in pairs(methods) do
    list[#list + 1] = m
  end
  table_sort(list)
  return table_concat(list, ", ")
end

-- call runs in content_by_lua of the status server's /configuration location.
function _M.call()
  local methods = routes[ngx.var.uri]
  if not methods then
    return respond(ngx.HTTP_NOT_FOUND, "not found\n")
  end
  local handler = methods[ngx.req.get_method()]
  if not handler then
    ngx.header["Allow"] = allowed(methods)
    return respond(ngx.HTTP_NOT_ALLOWED, "method not allowed\n")
  end
  return handler()
end

return _M
