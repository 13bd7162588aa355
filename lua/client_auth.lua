-- client_auth: client certificates (auth-tls-*) of the hosts the Lua
-- router serves (--routing=lua), as the classic server block's
-- ssl_client_certificate, ssl_verify_client and ssl_verify_depth, and the
-- checks nginx makes of a request of such a server before its rewrite
-- phase.
--
-- configuration.lua stores beside a host entry whose clientAuth asks for
-- certificates (verify other than "off") the key "t:<host>" =
-- "<caFile> <verify> <depth>" in routes_data (an alias's entry carries its
-- host's). In the router server's ssl_certificate_by_lua, handshake(name)
-- finds the host entry of the SNI name as the router finds a request's
-- (exact, one-label wildcard, "_"; no SNI: "_") and asks the client for a
-- certificate that the CA bundle verifies within depth intermediates
-- (ngx.ssl.verify_client). As with nginx's own, the handshake goes on
-- whatever the client sends; the result is $ssl_client_verify, which
-- check() reads. session_context(name) is what tls_session.lua mixes into
-- the session id context: a session verified against one CA never resumes
-- once the host's CA changed (a new CA is a new file name).
local ssl = require("ngx.ssl")
local util = require("util")

local ngx = ngx
local ngx_var = ngx.var
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_INFO = ngx.INFO
local ngx_exit = ngx.exit
local string_lower = string.lower
local string_match = string.match
local string_sub = string.sub
local re_find = ngx.re.find

local _M = {}

local CATCH_ALL = "_"

-- The CA bundles parsed by this worker, by file name (a name is never
-- reused for other content: model.File).
local MAX_CACHED = 1000
local cas = {}
local cached = 0

-- key returns the "t:" value of the host entry that serves name (nil for
-- none, or an entry that asks for no certificate), and whether name has a
-- host entry of its own (exact or wildcard: not the catch-all's).
local function key(name)
  local dict = ngx.shared.routes_data
  if not dict then
    return nil, false
  end
  local host = string_lower(name)
  if dict:get("v:" .. host) then
    return dict:get("t:" .. host), true
  end
  local wildcard = util.wildcard(host)
  if wildcard and dict:get("v:" .. wildcard) then
    return dict:get("t:" .. wildcard), true
  end
  return dict:get("t:" .. CATCH_ALL), false
end

-- session_context is the client certificate settings of name's host entry
-- ("" for none), for the TLS session id context, and whether the Lua
-- router has an entry for name (else a classic server block may serve it).
function _M.session_context(name)
  local t, routed = key(name)
  return t or "", routed
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
-- SNI name, nil without one). A CA bundle that cannot be read fails the
-- handshake: nothing could be verified, and letting the client in would
-- fail open.
function _M.handshake(name)
  local t = key(name or CATCH_ALL)
  if not t then
    return
  end
  local file, verify, depth = string_match(t, "^(%S+) (%S+) (%d+)$")
  if not file or verify == "off" then
    return
  end
  local chain, err = ca_chain(file)
  if not chain then
    ngx_log(ngx_ERR, "client_auth: ", err, "; refusing the handshake of ", name or "a client without SNI")
    return ngx_exit(ngx.ERROR)
  end
  local ok
  ok, err = ssl.verify_client(chain, tonumber(depth))
  if not ok then
    ngx_log(ngx_ERR, "client_auth: verify_client for ", name or "a client without SNI", ": ", err)
    return ngx_exit(ngx.ERROR)
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

-- server_name is the SNI name as nginx keeps it to compare with the
-- request's host: lower case, without a final dot; nil without SNI.
local function server_name()
  local sni = ngx_var.ssl_server_name
  if not sni or sni == "" then
    return nil
  end
  sni = string_lower(sni)
  if string_sub(sni, -1) == "." then
    sni = string_sub(sni, 1, -2)
  end
  return sni
end

-- check answers an HTTPS request to a host whose entry has clientAuth ca
-- (the compiled form: verify, error_page) as nginx answers a request of
-- a server with ssl_verify_client, before anything else of the server:
-- 421 when the request names another host than the handshake did (its
-- certificate was verified for that name, if at all); then, for a
-- verification that failed (495) or a certificate that "on" requires and
-- the client did not send (496), nginx's 400 page, or a 302 to
-- auth-tls-error-page. A plain HTTP request is not checked.
function _M.check(ca)
  if ngx_var.https ~= "on" then
    return
  end
  local sni = server_name()
  if sni and ngx_var.http_host and sni ~= ngx_var.host then
    ngx_log(ngx_INFO, "client attempted to request the server name different from the one that was negotiated")
    return ngx_exit(ngx.HTTP_MISDIRECTED_REQUEST or 421)
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
  if ca.error_page then
    return ngx.redirect(ca.error_page, 302)
  end
  return ngx_exit(status)
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

-- set_headers sets the variables of the headers that tell the backend
-- the verification's result (route.client_cert_headers) and the
-- certificate (route.pass_client_cert); over plain HTTP they are empty
-- and nginx sends none, as the classic location's.
function _M.set_headers(route)
  ngx_var.kubectl_ingress_ssl_client_verify = ngx_var.ssl_client_verify or ""
  ngx_var.kubectl_ingress_ssl_client_s_dn = ngx_var.ssl_client_s_dn or ""
  ngx_var.kubectl_ingress_ssl_client_i_dn = ngx_var.ssl_client_i_dn or ""
  if route.pass_client_cert then
    ngx_var.kubectl_ingress_ssl_client_cert = ngx_var.ssl_client_escaped_cert or ""
  end
end

return _M
