-- ocsp_stapling: OCSP stapling of the certificates that certificate.lua
-- serves (ConfigMap enable-ocsp), as ingress-nginx's certificate.lua does:
-- nginx's own ssl_stapling cannot apply, since nginx never loads these
-- certificates. A handshake never waits for a responder: it staples the
-- cached response when there is one, and when there is none (or it is due
-- for a refresh) it starts a fetch in a timer (ocsp_fetch.lua); the
-- handshakes after it staple the new response.
--
-- The cache is the shared dict ocsp_response_cache, shared by the
-- workers, keyed by the md5 of the DER certificate chain (a rotated
-- certificate gets its own response):
--   "r:" .. key  the validated DER response; it expires at the response's
--                nextUpdate (never stapled after it); its flags hold the
--                Unix time of the next refresh (5 minutes before
--                nextUpdate, at most an hour after the fetch, at least 5
--                minutes after it, as nginx's ssl_stapling)
--   "f:" .. key  a failed fetch: no new attempt before it expires (a
--                minute; an hour when the certificate itself is the
--                reason: no OCSP URL, no issuer in the chain)
--   "l:" .. key  a fetch in progress in some worker (one at a time)
-- A failed refresh keeps the previous response while it is valid.
local fetch = require("ocsp_fetch")
local ocsp = require("ngx.ocsp")
local ssl = require("ngx.ssl")

local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_WARN = ngx.WARN
local ngx_NOTICE = ngx.NOTICE
local ngx_md5 = ngx.md5
local math_max = math.max
local math_min = math.min
local pcall = pcall
local tostring = tostring

local _M = {}

_M.DICT = "ocsp_response_cache"

local MIN_REFRESH = 300      -- seconds after a fetch
local MAX_REFRESH = 3600
local BEFORE_EXPIRY = 300    -- refresh this long before nextUpdate
local NO_NEXT_UPDATE = 86400 -- validity of a response without nextUpdate
local RETRY_AFTER = 60       -- after a failed fetch
local RETRY_CERT_AFTER = 3600 -- after a failure that is the certificate's
local LOCK_TTL = 60          -- a fetch holds its lock at most this long

-- per-worker DER chains, by certificate.lua's cache sum
local MAX_CHAINS = 2000
local chains = {}
local nchains = 0

local enabled = false

-- init turns stapling on or off (init_by_lua, at every start and reload).
function _M.init(on)
  enabled = false
  if not on then
    return
  end
  if not ngx.shared[_M.DICT] then
    ngx_log(ngx_ERR, "ocsp_stapling: no lua_shared_dict ", _M.DICT, "; OCSP stapling stays off")
    return
  end
  enabled = true
end

function _M.enabled()
  return enabled
end

-- refresh_at returns when a response fetched at now, valid until
-- valid_until, is fetched again.
function _M.refresh_at(now, valid_until)
  local delay = math_min(valid_until - BEFORE_EXPIRY - now, MAX_REFRESH)
  return now + math_max(delay, MIN_REFRESH)
end

-- store caches a validated response of key.
function _M.store(dict, key, resp, next_update, now)
  local valid_until = next_update or now + NO_NEXT_UPDATE
  local ttl = valid_until - now
  if ttl <= 0 then
    return nil, "the response expired already"
  end
  local ok, err, forcible = dict:set("r:" .. key, resp, ttl, _M.refresh_at(now, valid_until))
  if not ok then
    return nil, "cache the response: " .. tostring(err)
  end
  if forcible then
    ngx_log(ngx_NOTICE, "ocsp_stapling: ", _M.DICT, " is full: older entries were dropped")
  end
  return true
end

local function run_fetch(premature, key, der)
  local dict = ngx.shared[_M.DICT]
  if premature then
    dict:delete("l:" .. key)
    return
  end
  local ok, resp, next_update, err, cert_fault = pcall(fetch.fetch, der)
  if not ok then
    err, resp = "fetch failed: " .. tostring(resp), nil
  end
  if resp then
    local stored
    stored, err = _M.store(dict, key, resp, next_update, ngx.time())
    if stored then
      dict:delete("f:" .. key)
      dict:delete("l:" .. key)
      return
    end
  end
  local retry = cert_fault and RETRY_CERT_AFTER or RETRY_AFTER
  ngx_log(cert_fault and ngx_NOTICE or ngx_WARN, "ocsp_stapling: ", err,
    "; certificates go without a stapled OCSP response; next attempt in ", retry, " s")
  dict:set("f:" .. key, true, retry)
  dict:delete("l:" .. key)
end

-- schedule starts a fetch for key unless one is running or failed lately.
local function schedule(dict, key, der)
  if dict:get("f:" .. key) then
    return
  end
  if not dict:add("l:" .. key, true, LOCK_TTL) then
    return -- another handshake, maybe in another worker, is fetching
  end
  local ok, err = ngx.timer.at(0, run_fetch, key, der)
  if not ok then
    dict:delete("l:" .. key)
    ngx_log(ngx_ERR, "ocsp_stapling: start the fetch: ", err)
  end
end

-- chain returns the DER chain of the PEM whose md5 is sum, and its cache
-- key.
local function chain(sum, pem)
  local c = chains[sum]
  if c then
    return c.der, c.key
  end
  local der, err = ssl.cert_pem_to_der(pem)
  if not der then
    return nil, nil, err
  end
  if nchains >= MAX_CHAINS then
    chains, nchains = {}, 0
  end
  nchains = nchains + 1
  c = { der = der, key = ngx_md5(der) }
  chains[sum] = c
  return c.der, c.key
end

-- staple runs in ssl_certificate_by_lua after the certificate of the PEM
-- pem (md5 sum) was set: it staples the cached response, and starts a
-- fetch when there is none or it is due for a refresh. Failures are
-- logged; the handshake goes on without a staple.
function _M.staple(sum, pem)
  if not enabled then
    return
  end
  local dict = ngx.shared[_M.DICT]
  local der, key, err = chain(sum, pem)
  if not der then
    ngx_log(ngx_ERR, "ocsp_stapling: read the certificate chain: ", err)
    return
  end
  local resp, refresh = dict:get("r:" .. key)
  if resp then
    local ok
    ok, err = ocsp.set_ocsp_status_resp(resp)
    if not ok then
      ngx_log(ngx_ERR, "ocsp_stapling: staple: ", err)
    end
  end
  if not resp or (refresh and ngx.time() >= refresh) then
    schedule(dict, key, der)
  end
end

return _M
