-- certificate: chooses the TLS certificate per SNI host name in
-- ssl_certificate_by_lua from the shared dicts certificate_servers
-- (host -> id) and certificate_data (id -> PEM: the chain, then the key).
-- When no certificate matches, the default certificate is served: the
-- files certs/default.crt and certs/default.key under nginx's prefix,
-- read by init() in the master. nginx.conf names them through a variable, so
-- nginx itself never loads them (loading them once per server block made
-- nginx -t and reloads slow); this handler replaces nginx's own loader.
-- With enable-ocsp it staples the certificate's OCSP response
-- (ocsp_stapling.lua).
local ssl = require("ngx.ssl")
local client_auth = require("client_auth")
local stapling = require("ocsp_stapling")
local util = require("util")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_md5 = ngx.md5
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
-- then the catch-all server's. It returns nil when only the default
-- certificate (the self-signed one) would be served.
function _M.lookup(hostname)
  if type(hostname) ~= "string" or hostname == "" then
    hostname = CATCH_ALL
  end
  local servers = ngx.shared.certificate_servers
  local data = ngx.shared.certificate_data
  local host = util.server_name(hostname)
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

-- DEFAULT_CERT and DEFAULT_KEY are the self-signed default certificate
-- that pkg/nginx lays out, relative to nginx's prefix.
local DEFAULT_CERT = "certs/default.crt"
local DEFAULT_KEY = "certs/default.key"

-- default_pem holds the default certificate and key as init() read them
-- in the master (workers run as another user and may not read the key);
-- default_pair is their parsed form, made once per worker.
local default_pem
local default_pair


-- init reads the default certificate and key files from nginx's prefix.
-- It runs in init_by_lua, in the master, at every start and reload, when
-- nginx itself would have read them. An unreadable file is logged; the
-- handshakes that need the default certificate then fail. options:
-- ocsp_stapling (enable-ocsp) staples the certificates' OCSP responses.
function _M.init(options)
  default_pem, default_pair = nil, nil
  stapling.init(type(options) == "table" and options.ocsp_stapling == true)
  local crt, err = util.read_file(util.prefix_path(DEFAULT_CERT))
  if not crt then
    ngx_log(ngx_ERR, "certificate: read ", DEFAULT_CERT, ": ", err)
    return
  end
  local key
  key, err = util.read_file(util.prefix_path(DEFAULT_KEY))
  if not key then
    ngx_log(ngx_ERR, "certificate: read ", DEFAULT_KEY, ": ", err)
    return
  end
  default_pem = { cert = crt, key = key }
end

-- default_certificate returns the parsed default certificate and key.
local function default_certificate()
  if default_pair then
    return default_pair.cert, default_pair.key
  end
  if not default_pem then
    return nil, nil, "not read (see the error at the start or reload)"
  end
  local cert, perr = ssl.parse_pem_cert(default_pem.cert)
  if not cert then
    return nil, nil, "parse " .. DEFAULT_CERT .. ": " .. tostring(perr)
  end
  local pkey
  pkey, perr = ssl.parse_pem_priv_key(default_pem.key)
  if not pkey then
    return nil, nil, "parse " .. DEFAULT_KEY .. ": " .. tostring(perr)
  end
  default_pair = { cert = cert, key = pkey }
  return cert, pkey
end

-- serve sets cert and key as the certificate of the handshake.
local function serve(id, cert, key)
  local ok, err = ssl.clear_certs()
  if not ok then
    ngx_log(ngx_ERR, "certificate: clear_certs: ", err)
    return ngx.exit(ngx.ERROR)
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

-- serve_default serves the default certificate, or fails the handshake
-- when it can't be read (nothing else could be served).
local function serve_default()
  local cert, key, err = default_certificate()
  if not cert then
    ngx_log(ngx_ERR, "certificate: default certificate: ", err)
    return ngx.exit(ngx.ERROR)
  end
  return serve("default", cert, key)
end

-- routed tells whether the Lua router has a host entry for name: the
-- exact name (a host or a server-alias), else a "*." name whose one label
-- stands for name's first, as nginx would find a classic server_name for
-- it; the catch-all's entry does not count.
local function routed(name)
  local dict = ngx.shared.routes_data
  if not dict then
    return false
  end
  local host = util.server_name(name)
  if host ~= CATCH_ALL and dict:get("v:" .. host) then
    return true
  end
  local wildcard = util.wildcard(host)
  return wildcard ~= nil and dict:get("v:" .. wildcard) ~= nil
end

-- call runs in ssl_certificate_by_lua. router_server is true in the Lua
-- router's server (a classic host's name never reaches it): there the
-- host entry of the name may ask for a client certificate
-- (client_auth.lua), and reject_unknown (ssl-reject-handshake) refuses
-- the handshake of a name the router has no host entry for, and of a
-- client without SNI, as nginx's ssl_reject_handshake in a classic
-- default server.
function _M.call(reject_unknown, router_server)
  local name, err = ssl.server_name()
  if not name then
    if err then
      ngx_log(ngx_ERR, "certificate: server name: ", err)
    end
    name = CATCH_ALL -- no SNI: the default certificate
  end
  if reject_unknown and not routed(name) then
    ngx_log(ngx.INFO, "certificate: handshake refused (ssl-reject-handshake): no host ", name)
    return ngx.exit(ngx.ERROR)
  end
  if router_server then
    client_auth.handshake(name)
  end
  local pem, id = _M.lookup(name)
  if not pem then
    return serve_default()
  end
  local cert, key, perr = parsed(id, pem)
  if not cert then
    ngx_log(ngx_ERR, "certificate: ", perr, "; serving the default certificate for ", name)
    return serve_default()
  end
  serve(id, cert, key)
  local entry = cache[id]
  if entry and stapling.enabled() then
    stapling.staple(entry.sum, pem)
  end
end

return _M
