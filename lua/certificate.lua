-- certificate: chooses the TLS certificate per SNI host name in
-- ssl_certificate_by_lua from the shared dicts certificate_servers
-- (host -> id) and certificate_data (id -> PEM: the chain, then the key).
-- When no certificate matches, nothing is set and nginx serves the
-- ssl_certificate of its config (the default certificate).
local ssl = require("ngx.ssl")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_md5 = ngx.md5
local string_lower = string.lower
local string_match = string.match

-- Parsed certificates are cached per worker, keyed by id; an entry is used
-- only while the md5 of its PEM is unchanged, so a rotation takes effect on
-- the next handshake.
local MAX_CACHED = 2000

local _M = {}

local cache = {}
local cached = 0

-- CATCH_ALL is the host of the catch-all server: the certificate mapped to
-- it (--default-ssl-certificate) is served when no host matches, so the
-- default certificate rotates without a reload too.
local CATCH_ALL = "_"

-- lookup returns the PEM and the certificate id served for hostname: the
-- exact host, then the wildcard "*." .. (hostname without its first label),
-- then the catch-all server's. It returns nil when only the certificate of
-- nginx.conf (the self-signed one) would be served.
function _M.lookup(hostname)
  if type(hostname) ~= "string" or hostname == "" then
    hostname = CATCH_ALL
  end
  local servers = ngx.shared.certificate_servers
  local data = ngx.shared.certificate_data
  local host = string_lower(hostname)
  local id = servers:get(host)
  if not id then
    local parent = string_match(host, "^[^.]+%.(.+)$")
    if parent then
      id = servers:get("*." .. parent)
    end
  end
  if not id then
    id = servers:get(CATCH_ALL)
  end
  if not id then
    return nil
  end
  local pem = data:get(id)
  if not pem then
    return nil
  end
  return pem, id
end

local function parsed(id, pem)
  local sum = ngx_md5(pem)
  local entry = cache[id]
  if entry and entry.sum == sum then
    return entry.cert, entry.key
  end
  local cert, err = ssl.parse_pem_cert(pem)
  if not cert then
    return nil, nil, "parse certificate " .. id .. ": " .. tostring(err)
  end
  local key
  key, err = ssl.parse_pem_priv_key(pem)
  if not key then
    return nil, nil, "parse private key " .. id .. ": " .. tostring(err)
  end
  if not entry then
    if cached >= MAX_CACHED then
      cache = {}
      cached = 0
    end
    cached = cached + 1
  end
  cache[id] = { sum = sum, cert = cert, key = key }
  return cert, key
end

-- call runs in ssl_certificate_by_lua.
function _M.call()
  local name, err = ssl.server_name()
  if not name then
    if err then
      ngx_log(ngx_ERR, "certificate: server name: ", err)
    end
    name = CATCH_ALL -- no SNI: the default certificate
  end
  local pem, id = _M.lookup(name)
  if not pem then
    return
  end
  local cert, key, perr = parsed(id, pem)
  if not cert then
    ngx_log(ngx_ERR, "certificate: ", perr, "; serving the default certificate for ", name)
    return
  end
  local ok
  ok, err = ssl.clear_certs()
  if not ok then
    ngx_log(ngx_ERR, "certificate: clear_certs: ", err)
    return
  end
  ok, err = ssl.set_cert(cert)
  if not ok then
    ngx_log(ngx_ERR, "certificate: set_cert ", id, ": ", err)
    return ngx.exit(ngx.ERROR)
  end
  ok, err = ssl.set_priv_key(key)
  if not ok then
    ngx_log(ngx_ERR, "certificate: set_priv_key ", id, ": ", err)
    return ngx.exit(ngx.ERROR)
  end
end

return _M
