-- configuration: the HTTP API of the status server (ingress-nginx
-- compatible), run by content_by_lua in `location /configuration`:
--
--   GET|POST /configuration/backends   backends JSON array (versioned, see store.lua)
--   GET|POST /configuration/general    general settings JSON object
--   POST     /configuration/servers    {"servers": {host: id}, "certificates": {id: PEM}}
--   GET      /configuration/certs?hostname=H   the PEM served for H
--   GET      /configuration/checksum   md5 of the nginx.conf these workers loaded
--
-- A POST is validated in full (validate.lua) before anything is stored: a
-- bad body answers 400 with a message, a body that does not fit in the
-- shared dict 413, and either leaves the last good data in place. Unknown
-- paths answer 404, a wrong method 405. See CONTRACT.md.
local store = require("store")
local validate = require("validate")
local general = require("general")
local certificate = require("certificate")

local ngx = ngx
local io_open = io.open
local ipairs = ipairs
local pairs = pairs
local tostring = tostring
local tonumber = tonumber
local table_sort = table.sort
local table_concat = table.concat

local TEXT = "text/plain; charset=utf-8"
local JSON = "application/json"

local BACKENDS = "backends"
local HTTP_TOO_LARGE = 413 -- no ngx.HTTP_REQUEST_ENTITY_TOO_LARGE in lua-nginx-module 0.10.23

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

-- backends_data returns the backends JSON that serves and its version (see
-- store.current), for balancer.lua.
function _M.backends_data()
  return store.current(ngx.shared.configuration_data, BACKENDS)
end

-- backends_version returns the version of the backends that serve.
function _M.backends_version()
  return store.version(ngx.shared.configuration_data, BACKENDS)
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

local function too_large(what, size, dict)
  return respond(HTTP_TOO_LARGE, what .. ": " .. tostring(size)
    .. " bytes do not fit in the shared dict (capacity " .. tostring(dict:capacity())
    .. " bytes, beside the current data)\n")
end

-- read_body returns the request body, also when nginx buffered it to a
-- file; too_big is true when it is larger than limit bytes.
local function read_body(limit)
  local length = tonumber(ngx.var.content_length)
  if length and length > limit then
    return nil, "larger than the shared dict", true, length
  end
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
  if #body > limit then
    return nil, "larger than the shared dict", true, #body
  end
  return body
end

local function get_backends()
  local raw = _M.backends_data()
  return respond(ngx.HTTP_OK, raw or "[]", JSON)
end

-- post_versioned validates and publishes the body of a POST for a value
-- kept with store.lua (backends, general).
local function post_versioned(name, check)
  local dict = ngx.shared.configuration_data
  local body, err, big, size = read_body(dict:capacity())
  if big then
    return too_large(name, size, dict)
  end
  if not body then
    return bad_request(name .. ": " .. err)
  end
  local _, verr = check(body)
  if verr then
    return bad_request(verr)
  end
  local version, perr = store.publish(dict, name, body)
  if not version then
    if perr == store.ERR_TOO_LARGE then
      return too_large(name, #body, dict)
    end
    return respond(ngx.HTTP_SERVICE_UNAVAILABLE, name .. ": cannot store: " .. tostring(perr) .. "\n")
  end
  return respond(ngx.HTTP_CREATED)
end

local function post_backends()
  return post_versioned(BACKENDS, validate.backends)
end

local function get_general()
  return respond(ngx.HTTP_OK, general.raw(), JSON)
end

local function post_general()
  return post_versioned(general.NAME, validate.general)
end

-- store_all stores every entry of map in dict with safe_set (which never
-- evicts other entries to make room). On failure it puts back what it
-- changed and returns nil and the error.
local function store_all(dict, map)
  local undo = {}
  for k, v in pairs(map) do
    local old = dict:get(k)
    if old ~= v then
      local ok, err = dict:safe_set(k, v)
      if not ok then
        for uk, uv in pairs(undo) do
          if uv == false then
            dict:delete(uk)
          elseif not dict:safe_set(uk, uv) then
            ngx.log(ngx.ERR, "configuration: cannot put back ", uk, " after a failed update")
          end
        end
        return nil, err
      end
      undo[k] = old or false
    end
  end
  return undo
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
  local data = ngx.shared.certificate_data
  local index = ngx.shared.certificate_servers
  local body, err, big, size = read_body(data:capacity())
  if big then
    return too_large("servers", size, data)
  end
  if not body then
    return bad_request("servers: " .. err)
  end
  local hosts, certs, verr = validate.servers(body)
  if not hosts then
    return bad_request(verr)
  end
  -- New PEMs first, then the host map, then the stale entries: a handshake
  -- meanwhile sees the old or the new certificate, never none.
  local undo, serr = store_all(data, certs)
  if not undo then
    if serr == store.ERR_TOO_LARGE then
      return too_large("servers: certificates", #body, data)
    end
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "servers: cannot store certificates: " .. tostring(serr) .. "\n")
  end
  local ok, herr = store_all(index, hosts)
  if not ok then
    for k, v in pairs(undo) do
      if v == false then
        data:delete(k)
      else
        data:safe_set(k, v)
      end
    end
    if herr == store.ERR_TOO_LARGE then
      return too_large("servers: host map", #body, index)
    end
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "servers: cannot store the host map: " .. tostring(herr) .. "\n")
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
