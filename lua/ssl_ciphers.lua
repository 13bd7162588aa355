-- ssl_ciphers: a Lua-routed host's ssl-ciphers and
-- ssl-prefer-server-ciphers (--routing=lua), as the classic server
-- block's ssl_ciphers and ssl_prefer_server_ciphers.
--
-- configuration.lua stores beside a host entry with a "tls" object the
-- key "s:<host>" = "<on|off|-> <cipher list>" in routes_data ("-": the
-- router server's ssl_prefer_server_ciphers; an empty list: its
-- ssl_ciphers); validate.lua makes the value (key()) and refuses an entry
-- whose list OpenSSL does not take (check()). In the router server's
-- ssl_certificate_by_lua, client_auth.handshake finds the host entry of
-- the SNI name and apply() sets them on the connection: OpenSSL chooses
-- the cipher of a TLS 1.2 (or older) handshake after that callback, from
-- the connection's list. As nginx's ssl_ciphers, the list does not touch
-- TLS 1.3's suites, and the preference does not order them: OpenSSL chose
-- the suite before the callback, as it does before nginx switches a
-- classic server's SSL_CTX by SNI (nginx 1.22, OpenSSL 3.0).
local ffi = require("ffi")
local base = require("resty.core.base")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local string_match = string.match
local C = ffi.C

-- Each declaration alone: another module (a newer lua-resty-core,
-- client_auth.lua) may have made one already, which ffi.cdef refuses to
-- repeat. OpenSSL 3's SSL_set_options and SSL_clear_options take and
-- return a uint64_t (an unsigned long before: the same on x86-64).
pcall(ffi.cdef, [[void *ngx_http_lua_ffi_get_req_ssl_pointer(void *r);]])
pcall(ffi.cdef, [[int SSL_set_cipher_list(void *ssl, const char *str);]])
pcall(ffi.cdef, [[uint64_t SSL_set_options(void *ssl, uint64_t op);]])
pcall(ffi.cdef, [[uint64_t SSL_clear_options(void *ssl, uint64_t op);]])
pcall(ffi.cdef, [[const void *TLS_server_method(void);]])
pcall(ffi.cdef, [[void *SSL_CTX_new(const void *method);]])
pcall(ffi.cdef, [[void *SSL_new(void *ctx);]])
pcall(ffi.cdef, [[void SSL_free(void *ssl);]])
pcall(ffi.cdef, [[void ERR_clear_error(void);]])

-- SSL_OP_CIPHER_SERVER_PREFERENCE (ssl.h: SSL_OP_BIT(22))
local SERVER_PREFERENCE = 0x400000ULL

local _M = {}

-- available says whether nginx's OpenSSL exports what apply() calls (a
-- dynamically linked libssl does); nil until asked.
local available

local function resolve()
  local ok = pcall(function()
    return C.SSL_set_cipher_list ~= nil and C.SSL_set_options ~= nil and C.SSL_clear_options ~= nil
      and C.ngx_http_lua_ffi_get_req_ssl_pointer ~= nil and C.ERR_clear_error ~= nil
  end)
  if not ok then
    ngx_log(ngx_ERR, "ssl_ciphers: libssl's SSL_set_cipher_list is not available: the handshakes of hosts with ssl-ciphers are refused")
  end
  return ok
end

-- key returns the "s:<host>" value of a host entry's tls object (nil for
-- none). validate.lua checked it.
function _M.key(tls)
  if type(tls) ~= "table" then
    return nil
  end
  local prefer = "-"
  if tls.preferServerCiphers == true then
    prefer = "on"
  elseif tls.preferServerCiphers == false then
    prefer = "off"
  end
  local ciphers = type(tls.ciphers) == "string" and tls.ciphers or ""
  if prefer == "-" and ciphers == "" then
    return nil
  end
  return prefer .. " " .. ciphers
end

-- A context of this worker's own, from which check() makes a connection
-- per list it tries: a list leaves settings behind where it is set (the
-- Suite B names set the Suite B mode, after which OpenSSL takes any list),
-- so never on something a later list is tried on.
local scratch

-- check returns nil when OpenSSL takes list (a cipher list of at least
-- one cipher it knows), else the reason. Without the functions (a libssl
-- linked in statically) it refuses every list: apply() could not set it.
function _M.check(list)
  if scratch == nil then
    local ok, ctx = pcall(function()
      return C.SSL_CTX_new(C.TLS_server_method())
    end)
    scratch = ok and ctx ~= nil and ctx or false
  end
  if not scratch then
    return "this nginx's OpenSSL cannot set a host's ciphers"
  end
  local ssl = C.SSL_new(scratch)
  if ssl == nil then
    C.ERR_clear_error()
    return "SSL_new failed"
  end
  local taken = C.SSL_set_cipher_list(ssl, list) == 1
  C.SSL_free(ssl)
  if not taken then
    -- nginx would log what is left on the queue at its next SSL call
    C.ERR_clear_error()
    return "OpenSSL takes no cipher of this list"
  end
  return nil
end

-- apply sets value (a "s:" value) on the connection whose handshake runs
-- (ssl_certificate_by_lua) for name. A list OpenSSL refuses here, or an
-- OpenSSL without the functions, fails the handshake: the host's ciphers
-- are never widened to the router's.
function _M.apply(value, name)
  if available == nil then
    available = resolve()
  end
  if not available then
    return ngx.exit(ngx.ERROR)
  end
  local prefer, ciphers = string_match(value, "^(%S+) (.*)$")
  local r = base.get_request()
  local ssl = r and C.ngx_http_lua_ffi_get_req_ssl_pointer(r)
  if not prefer or ssl == nil then
    ngx_log(ngx_ERR, "ssl_ciphers: no connection or a bad value for ", name, ": ", value)
    return ngx.exit(ngx.ERROR)
  end
  if ciphers ~= "" and C.SSL_set_cipher_list(ssl, ciphers) ~= 1 then
    C.ERR_clear_error()
    ngx_log(ngx_ERR, "ssl_ciphers: SSL_set_cipher_list failed for ", name, ": ", ciphers)
    return ngx.exit(ngx.ERROR)
  end
  if prefer == "on" then
    C.SSL_set_options(ssl, SERVER_PREFERENCE)
  elseif prefer == "off" then
    C.SSL_clear_options(ssl, SERVER_PREFERENCE)
  end
end

return _M
