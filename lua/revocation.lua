-- revocation: the CA revocation list (auth-tls-secret's ca.crl) of a
-- Lua-routed host's client certificates (--routing=lua), as the classic
-- server's ssl_crl.
--
-- ngx.ssl.verify_client sets a verify store on the connection that holds
-- the CA bundle alone. check_with(ca, crl) replaces it with a store of the
-- CA bundle and the CRL (PEM files under nginx's prefix, read with
-- OpenSSL's X509_load_cert_crl_file) with nginx's flags
-- (X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL: every certificate
-- of the client's chain is checked, and one whose issuer has no CRL in the
-- store fails as in nginx). OpenSSL verifies the client's certificate
-- later in the handshake against that store; a revoked one makes
-- $ssl_client_verify "FAILED:certificate revoked", which
-- client_auth.check() answers. A store is made once per (CA, CRL) pair
-- per worker and shared by the connections (each holds a reference): a
-- new CRL is a new file name (model.File), so a cached store is never
-- stale.
local ffi = require("ffi")
local base = require("resty.core.base")
local util = require("util")

local C = ffi.C

-- Each declaration alone: another module may have made one already, which
-- ffi.cdef refuses to repeat.
pcall(ffi.cdef, [[void *ngx_http_lua_ffi_get_req_ssl_pointer(void *r);]])
pcall(ffi.cdef, [[void *X509_STORE_new(void);]])
pcall(ffi.cdef, [[void X509_STORE_free(void *store);]])
pcall(ffi.cdef, [[int X509_STORE_set_flags(void *store, unsigned long flags);]])
pcall(ffi.cdef, [[const void *X509_LOOKUP_file(void);]])
pcall(ffi.cdef, [[void *X509_STORE_add_lookup(void *store, const void *method);]])
pcall(ffi.cdef, [[int X509_load_cert_crl_file(void *lookup, const char *file, int type);]])
pcall(ffi.cdef, [[long SSL_ctrl(void *ssl, int cmd, long larg, void *parg);]])
pcall(ffi.cdef, [[void ERR_clear_error(void);]])

-- x509_vfy.h and ssl.h
local X509_V_FLAG_CRL_CHECK = 0x4
local X509_V_FLAG_CRL_CHECK_ALL = 0x8
local X509_FILETYPE_PEM = 1
local SSL_CTRL_SET_VERIFY_CERT_STORE = 106

local _M = {}

local MAX_CACHED = 1000
local stores = {}
local cached = 0

-- store returns the verify store of ca and crl (files relative to nginx's
-- prefix), made once.
local function store(ca, crl)
  local key = ca .. " " .. crl
  local s = stores[key]
  if s then
    return s
  end
  local ok, made = pcall(C.X509_STORE_new)
  if not ok or made == nil then
    return nil, "X509_STORE_new failed: " .. tostring(made)
  end
  -- freed when this worker drops it from its cache (the connections that
  -- hold it keep their references)
  made = ffi.gc(made, C.X509_STORE_free)
  local lookup = C.X509_STORE_add_lookup(made, C.X509_LOOKUP_file())
  if lookup == nil then
    return nil, "X509_STORE_add_lookup failed"
  end
  for _, file in ipairs({ ca, crl }) do
    if C.X509_load_cert_crl_file(lookup, util.prefix_path(file), X509_FILETYPE_PEM) < 1 then
      -- nginx would log what is left on the queue at its next SSL call
      C.ERR_clear_error()
      return nil, "cannot load " .. file
    end
  end
  if C.X509_STORE_set_flags(made, X509_V_FLAG_CRL_CHECK + X509_V_FLAG_CRL_CHECK_ALL) ~= 1 then
    return nil, "X509_STORE_set_flags failed"
  end
  if cached >= MAX_CACHED then
    stores, cached = {}, 0
  end
  stores[key] = made
  cached = cached + 1
  return made
end

-- check_with runs in ssl_certificate_by_lua after ngx.ssl.verify_client:
-- the connection verifies the client's chain against ca and crl. It
-- returns true, or nil and the reason.
function _M.check_with(ca, crl)
  local s, err = store(ca, crl)
  if not s then
    return nil, err
  end
  local r = base.get_request()
  local ssl = r and C.ngx_http_lua_ffi_get_req_ssl_pointer(r)
  if ssl == nil then
    return nil, "no SSL connection"
  end
  -- the "set1" form: the connection takes a reference of its own
  if C.SSL_ctrl(ssl, SSL_CTRL_SET_VERIFY_CERT_STORE, 1, s) ~= 1 then
    return nil, "SSL_set1_verify_cert_store failed"
  end
  return true
end

return _M
