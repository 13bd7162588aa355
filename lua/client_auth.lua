-- client_auth: client certificates (auth-tls-*) of the hosts the Lua
-- router serves (--routing=lua), as the classic server block's
-- ssl_client_certificate, ssl_verify_client and ssl_verify_depth, and the
-- checks nginx makes of a request of such a server before its rewrite
-- phase.
--
-- configuration.lua stores beside a host entry whose clientAuth asks for
-- certificates (verify other than "off") the key "t:<host>" =
-- "<caFile> <verify> <depth> [<crlFile>]" in routes_data (an alias's entry carries its
-- host's). In the router server's ssl_certificate_by_lua, handshake(name)
-- finds the host entry of the SNI name as the router finds a request's
-- (exact, one-label wildcard, "_"; no SNI: "_") and asks the client for a
-- certificate that the CA bundle verifies within depth intermediates
-- (ngx.ssl.verify_client), and not revoked by the CRL when the entry has
-- one (revocation.lua). As with nginx's own, the handshake goes on
-- whatever the client sends; the result is $ssl_client_verify, which
-- check() reads. session_context(name) is what tls_session.lua mixes into
-- the session id context: a session verified against one CA never resumes
-- once the host's CA changed (a new CA is a new file name).
local ffi = require("ffi")
local base = require("resty.core.base")
local ssl = require("ngx.ssl")
local util = require("util")
local ssl_ciphers = require("ssl_ciphers")
local revocation = require("revocation")

local ngx = ngx
local ngx_var = ngx.var
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_INFO = ngx.INFO
local ngx_exit = ngx.exit
local string_match = string.match
local string_sub = string.sub
local string_byte = string.byte
local string_find = string.find
local SLASH = string.byte("/")
local re_find = ngx.re.find
local ngx_md5_bin = ngx.md5_bin
local C = ffi.C

-- Each declaration alone: another module (a newer lua-resty-core, or
-- tls_session.lua) may have made one already, which ffi.cdef refuses to
-- repeat.
pcall(ffi.cdef, [[void *ngx_http_lua_ffi_get_req_ssl_pointer(void *r);]])
pcall(ffi.cdef, [[void *SSL_get_session(const void *ssl);]])
pcall(ffi.cdef, [[const unsigned char *SSL_SESSION_get0_id_context(const void *s, unsigned int *len);]])

local _M = {}

-- classic is the digest of the client certificate settings of the
-- classic server blocks (tls_session.init, from nginx.conf).
local classic = ""

function _M.init(classic_digest)
  classic = type(classic_digest) == "string" and classic_digest or ""
end

local CATCH_ALL = "_"

local MISDIRECTED = 421

-- The CA bundles parsed by this worker, by file name (a name is never
-- reused for other content: model.File).
local MAX_CACHED = 1000
local cas = {}
local cached = 0

-- entry_of returns the name of the host entry that serves host (host
-- itself, its one-label wildcard, or the catch-all "_") and whether host
-- has an entry of its own (exact or wildcard: not the catch-all's).
local function entry_of(dict, host)
  if dict:get("v:" .. host) then
    return host, true
  end
  local wildcard = util.wildcard(host)
  if wildcard and dict:get("v:" .. wildcard) then
    return wildcard, true
  end
  return CATCH_ALL, false
end

-- key returns the "t:" value of the host entry that serves name (nil for
-- none, or an entry that asks for no certificate), whether name has a
-- host entry of its own, and the entry's "s:" value (ssl_ciphers.lua).
local function key(host)
  local dict = ngx.shared.routes_data
  if not dict then
    return nil, false
  end
  local entry, own = entry_of(dict, host)
  return dict:get("t:" .. entry), own, dict:get("s:" .. entry)
end

local normalize = util.server_name

-- session_id_context is the TLS session id context of a connection whose
-- SNI is name ("" or nil: none): the md5 of the name and of the client
-- certificate settings and ciphers of its host entry, for a name no Lua host entry
-- serves also of the classic server blocks' (tls_session.lua sets it, and
-- check() compares a request's connection with it).
function _M.session_id_context(name)
  name = normalize(name)
  local t, routed, s = key(name == "" and CATCH_ALL or name)
  local settings = t or ""
  if s then
    -- a session of a cipher the host no longer lists does not resume
    settings = settings .. "\n" .. s
  end
  if not routed then
    settings = settings .. "\n" .. classic
  end
  return ngx_md5_bin(name .. "\n" .. settings)
end

-- connection_context is the session id context of the request's TLS
-- connection (nil when it cannot be read: no TLS, or a libssl without the
-- functions).
local connection_context
do
  local len = ffi.new("unsigned int[1]")
  local ok = pcall(function()
    return C.SSL_get_session ~= nil and C.SSL_SESSION_get0_id_context ~= nil and C.ngx_http_lua_ffi_get_req_ssl_pointer ~= nil
  end)
  connection_context = function()
    if not ok then
      return nil
    end
    local r = base.get_request()
    local conn = r and C.ngx_http_lua_ffi_get_req_ssl_pointer(r)
    if conn == nil then
      return nil
    end
    local sess = C.SSL_get_session(conn)
    if sess == nil then
      return nil
    end
    local id = C.SSL_SESSION_get0_id_context(sess, len)
    if id == nil then
      return nil
    end
    return ffi.string(id, len[0])
  end
end

-- ca_chain returns the parsed CA bundle of file (relative to nginx's
-- prefix).
local function ca_chain(file)
  local chain = cas[file]
  if chain then
    return chain
  end
  local pem, err = util.read_file(util.prefix_path(file))
  if not pem then
    return nil, "read " .. file .. ": " .. tostring(err)
  end
  chain, err = ssl.parse_pem_cert(pem)
  if not chain then
    return nil, "parse " .. file .. ": " .. tostring(err)
  end
  if cached >= MAX_CACHED then
    cas, cached = {}, 0
  end
  cas[file] = chain
  cached = cached + 1
  return chain
end

-- handshake runs in the router server's ssl_certificate_by_lua (name: the
-- SNI name, nil without one): the ciphers of the name's host entry
-- (ssl_ciphers.lua), then its client certificates. A CA bundle that
-- cannot be read fails the handshake: nothing could be verified, and
-- letting the client in would fail open.
function _M.handshake(name)
  name = normalize(name)
  local dict = ngx.shared.routes_data
  if not dict then
    return
  end
  local entry = entry_of(dict, name == "" and CATCH_ALL or name)
  local s = dict:get("s:" .. entry)
  if s then
    ssl_ciphers.apply(s, name)
  end
  local t = dict:get("t:" .. entry)
  if not t then
    return
  end
  local file, verify, depth, crl = string_match(t, "^(%S+) (%S+) (%d+) ?(%S*)$")
  if not file or verify == "off" then
    return
  end
  local who = name ~= "" and name or "a client without SNI"
  local chain, err = ca_chain(file)
  if not chain then
    ngx_log(ngx_ERR, "client_auth: ", err, "; refusing the handshake of ", who)
    return ngx_exit(ngx.ERROR)
  end
  local ok
  ok, err = ssl.verify_client(chain, tonumber(depth))
  if not ok then
    ngx_log(ngx_ERR, "client_auth: verify_client for ", who, ": ", err)
    return ngx_exit(ngx.ERROR)
  end
  if crl ~= "" then
    -- the store verify_client made holds the CA alone: one with the CRL
    -- too replaces it (a CRL that cannot be read fails the handshake, as
    -- a CA bundle)
    ok, err = revocation.check_with(file, crl)
    if not ok then
      ngx_log(ngx_ERR, "client_auth: ", err, "; refusing the handshake of ", who)
      return ngx_exit(ngx.ERROR)
    end
  end
end

-- OPTIONAL_ERRORS are the verification errors that optional_no_ca lets
-- in (nginx's ngx_ssl_verify_error_optional: a CA the bundle lacks), as
-- $ssl_client_verify names them after "FAILED:" (OpenSSL 3 and 1.1).
local OPTIONAL_ERRORS = {
  ["self-signed certificate"] = true,
  ["self signed certificate"] = true,
  ["self-signed certificate in certificate chain"] = true,
  ["self signed certificate in certificate chain"] = true,
  ["unable to get local issuer certificate"] = true,
  ["unable to get issuer certificate"] = true,
  ["unable to verify the first certificate"] = true,
}

-- check answers an HTTPS request to a host whose entry has clientAuth ca
-- (the compiled form: verify, error_page) as nginx answers a request of
-- a server with ssl_verify_client, before anything else of the server:
-- 421 when the request names another host than the handshake did (its
-- certificate was verified for that name, if at all), and when the
-- connection's handshake was made under other client certificate
-- settings (its session id context is not the current one); then, for a
-- verification that failed (495) or a certificate that "on" requires and
-- the client did not send (496), nginx's 400 page, or a 302 to
-- auth-tls-error-page (a URL; a path it returns, for the router to serve
-- as nginx's internal redirect: serve_page). A plain HTTP request is not
-- checked.
function _M.check(ca)
  if ngx_var.https ~= "on" then
    return
  end
  local sni = normalize(ngx_var.ssl_server_name)
  if sni ~= "" and ngx_var.http_host and sni ~= ngx_var.host then
    ngx_log(ngx_INFO, "client attempted to request the server name different from the one that was negotiated")
    return ngx_exit(MISDIRECTED)
  end
  local current = connection_context()
  if current and current ~= _M.session_id_context(sni) then
    -- the connection's certificate was verified (or not asked for) under
    -- other client certificate settings of the host: a CA rotated since
    -- its handshake. The client asks again over a new connection (a
    -- classic server's reload would have closed it with the old workers)
    ngx_log(ngx_INFO, "client certificate settings changed since the connection's handshake")
    return ngx_exit(MISDIRECTED)
  end
  local result = ngx_var.ssl_client_verify
  if result == "SUCCESS" then
    return
  end
  local status
  if result == "NONE" or not result then
    if ca.verify == "on" then
      ngx_log(ngx_INFO, "client sent no required SSL certificate")
      status = 496
    end
  elseif not (ca.verify == "optional_no_ca" and OPTIONAL_ERRORS[string_sub(result, 8)]) then
    ngx_log(ngx_INFO, "client SSL certificate verify error: ", result)
    status = 495
  end
  if not status then
    return
  end
  local page = ca.error_page
  if page then
    if string_byte(page, 1) == SLASH then
      -- nginx's "error_page 495 496 = /path": the caller serves the path
      return page
    end
    return ngx.redirect(page, 302)
  end
  return ngx_exit(status)
end

-- serve_page turns the request into the internal redirect of nginx's
-- "error_page 495 496 = page" (page a path, maybe with arguments): a
-- method other than GET and HEAD becomes GET, the URI and arguments are
-- the page's (the request's own are dropped), the body stays. The router
-- then routes the new URI of the same host; in a named location it enters
-- after that, check() answers the page again and serve_page sets the same
-- URI (no loop).
function _M.serve_page(page)
  local method = ngx.req.get_method()
  if method ~= "GET" and method ~= "HEAD" then
    ngx.req.set_method(ngx.HTTP_GET)
  end
  local q = string_find(page, "?", 1, true)
  local args = ""
  if q then
    page, args = string_sub(page, 1, q - 1), string_sub(page, q + 1)
  end
  ngx.req.set_uri(page, false, true)
  ngx.req.set_uri_args(args)
end

-- UNAUTHORIZED is the body of auth-tls-match-cn's 403, as the classic
-- location's "return 403".
local UNAUTHORIZED = "client certificate unauthorized"

-- match_cn answers 403 unless the subject DN of the client certificate
-- matches the route's auth-tls-match-cn (PCRE, case sensitive, as
-- nginx's "!~"); no certificate has the empty subject.
function _M.match_cn(regex)
  local dn = ngx_var.ssl_client_s_dn or ""
  local from, _, err = re_find(dn, regex, "jo")
  if from then
    return
  end
  if err then
    ngx_log(ngx_ERR, "client_auth: auth-tls-match-cn ", regex, ": ", err)
  end
  ngx.status = ngx.HTTP_FORBIDDEN
  ngx.header["Content-Length"] = #UNAUTHORIZED
  ngx.print(UNAUTHORIZED)
  return ngx_exit(ngx.HTTP_OK)
end

-- set_headers sets the request headers that tell the backend the
-- verification's result (route.client_cert_headers) and the certificate
-- (route.pass_client_cert), replacing the client's own; over plain HTTP
-- they are empty and none is sent, as from the classic location.
local set_request_header = util.set_request_header

function _M.set_headers(route)
  set_request_header("ssl-client-verify", ngx_var.ssl_client_verify)
  set_request_header("ssl-client-subject-dn", ngx_var.ssl_client_s_dn)
  set_request_header("ssl-client-issuer-dn", ngx_var.ssl_client_i_dn)
  if route.pass_client_cert then
    set_request_header("ssl-client-cert", ngx_var.ssl_client_escaped_cert)
  end
end

return _M
