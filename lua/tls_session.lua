-- tls_session: a TLS session resumes only under the server name (SNI) it
-- was made for. ssl_client_hello_by_lua runs before OpenSSL looks up the
-- session a client offers (a session id or ticket, TLS 1.2 and 1.3), and
-- client_hello() sets the connection's session id context to the md5 of
-- the lower-case name; OpenSSL resumes a session only when its context is
-- the connection's, so a session of one host offered under another name
-- starts a full handshake instead, and ssl_certificate_by_lua runs for
-- that name (the host's certificate, ssl-reject-handshake's check).
--
-- nginx alone does not isolate them: it picks a server block's SSL_CTX by
-- SNI after that lookup, so a session made under one name resumes under
-- any other on the same port (tried with nginx 1.22 and OpenSSL 3.0). A
-- client without SNI gets the context of the name "". The context also
-- holds the client certificate settings of the name's host entry
-- (client_auth.lua), so a CA change ends the sessions it verified.
local ffi = require("ffi")
local base = require("resty.core.base")
local clienthello = require("ngx.ssl.clienthello")
local client_auth = require("client_auth")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local C = ffi.C

-- Each declaration alone: another module (a newer lua-resty-core) may
-- have made one already, which ffi.cdef refuses to repeat.
pcall(ffi.cdef, [[void *ngx_http_lua_ffi_get_req_ssl_pointer(void *r);]])
pcall(ffi.cdef, [[int SSL_set_session_id_context(void *ssl, const unsigned char *sid_ctx, unsigned int sid_ctx_len);]])

local _M = {}

-- init runs in init_by_lua with the digest of the client certificate
-- settings of the classic server blocks ("" for none): a name that no Lua
-- host entry serves mixes it in, so that a CA change of a classic host
-- ends the sessions it verified (nginx's own context would hold the CA,
-- but the one set here replaces it).
function _M.init(classic_digest)
  client_auth.init(classic_digest)
end

-- available says whether nginx's OpenSSL exports SSL_set_session_id_context
-- (a dynamically linked libssl does); nil until the first handshake asks.
local available

local function resolve()
  local ok = pcall(function()
    return C.SSL_set_session_id_context ~= nil and C.ngx_http_lua_ffi_get_req_ssl_pointer ~= nil
  end)
  if not ok then
    ngx_log(ngx_ERR, "tls_session: SSL_set_session_id_context is not available: sessions are not kept per server name")
  end
  return ok
end

-- client_hello runs in ssl_client_hello_by_lua.
function _M.client_hello()
  if available == nil then
    available = resolve()
  end
  if not available then
    return
  end
  local name, err = clienthello.get_client_hello_server_name()
  if not name then
    if err then
      ngx_log(ngx_ERR, "tls_session: server name: ", err)
      return
    end
    name = "" -- no SNI: a context of its own too
  end
  local r = base.get_request()
  local ssl = r and C.ngx_http_lua_ffi_get_req_ssl_pointer(r)
  if ssl == nil then
    ngx_log(ngx_ERR, "tls_session: no SSL connection for ", name)
    return
  end
  -- 16 bytes: OpenSSL takes up to 32. The host's client certificate
  -- settings are part of it: a session verified against one CA does not
  -- resume once the host asks for another (client_auth.lua)
  local context = client_auth.session_id_context(name)
  if C.SSL_set_session_id_context(ssl, context, #context) ~= 1 then
    ngx_log(ngx_ERR, "tls_session: SSL_set_session_id_context failed for ", name)
  end
end

return _M
