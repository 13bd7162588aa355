-- ocsp_fetch: asks a certificate's OCSP responder for the status of the
-- certificate (RFC 6960), for ocsp_stapling.lua. It knows the responder
-- URL of the certificate's Authority Information Access extension (plain
-- http only: OCSP responders do not use TLS, the response is signed), sends
-- the request as one HTTP/1.0 POST over a cosocket (there is no
-- resty.http here), and reads the nextUpdate time of a response. Host
-- names resolve through nginx's "resolver" line; nothing here blocks a
-- handshake: it runs in a timer.
local ocsp = require("ngx.ocsp")

local ngx = ngx
local type = type
local tonumber = tonumber
local tostring = tostring
local string_byte = string.byte
local string_find = string.find
local string_lower = string.lower
local string_match = string.match
local string_sub = string.sub
local table_concat = table.concat

local _M = {}

-- MAX_RESPONSE bounds the body of a responder's answer (a response is a
-- few KB; one with the responder's certificates a few more) and of its
-- header lines.
_M.MAX_RESPONSE = 64 * 1024
local MAX_HEADER_LINES = 64

-- TIMEOUTS are the connect, send and read timeouts in milliseconds.
_M.TIMEOUTS = { connect = 2000, send = 2000, read = 3000 }

-- parse_url splits an OCSP responder URL into host (an IPv6 address without
-- its brackets), port, path and the Host header. Only http:// is
-- accepted.
function _M.parse_url(url)
  if type(url) ~= "string" then
    return nil, "no URL"
  end
  local scheme, rest = string_match(url, "^(%a[%w+.-]*)://(.*)$")
  if not scheme then
    return nil, "not an absolute URL: " .. url
  end
  scheme = string_lower(scheme)
  if scheme ~= "http" then
    return nil, "responder URL " .. url .. " is not http:// (only plain http responders are asked)"
  end
  local authority, path = string_match(rest, "^([^/?#]*)(.*)$")
  if string_find(authority, "@", 1, true) then
    return nil, "responder URL " .. url .. " has user information"
  end
  local host, port
  if string_sub(authority, 1, 1) == "[" then
    host, port = string_match(authority, "^%[([%x:.]+)%]:?(%d*)$")
  else
    host, port = string_match(authority, "^([%w.-]+):?(%d*)$")
  end
  if not host or host == "" then
    return nil, "responder URL " .. url .. " has no valid host"
  end
  if port == "" then
    port = 80
  else
    port = tonumber(port)
    if not port or port < 1 or port > 65535 then
      return nil, "responder URL " .. url .. " has a bad port"
    end
  end
  path = string_match(path, "^[^#]*")
  if path == "" then
    path = "/"
  elseif string_sub(path, 1, 1) ~= "/" then
    path = "/" .. path -- "?query" only
  end
  if string_find(path, "[%c ]") then
    return nil, "responder URL " .. url .. " has spaces or control characters in its path"
  end
  return { host = host, port = port, path = path, host_header = authority }
end

-- read_headers reads the status line and the header lines; it returns the
-- status code and the Content-Length (nil when absent).
local function read_headers(sock)
  local line, err = sock:receive("*l")
  if not line then
    return nil, nil, "read the status line: " .. tostring(err)
  end
  local status = tonumber(string_match(line, "^HTTP/%d%.%d (%d%d%d)"))
  if not status then
    return nil, nil, "not an HTTP answer: " .. string_sub(line, 1, 80)
  end
  local length
  for _ = 1, MAX_HEADER_LINES do
    line, err = sock:receive("*l")
    if not line then
      return nil, nil, "read the headers: " .. tostring(err)
    end
    if line == "" then
      return status, length
    end
    local name, value = string_match(line, "^([^:]+):%s*(.-)%s*$")
    if name and string_lower(name) == "content-length" then
      length = tonumber(value)
      if not length or length < 0 then
        return nil, nil, "bad Content-Length: " .. value
      end
    end
  end
  return nil, nil, "more than " .. MAX_HEADER_LINES .. " header lines"
end

-- read_body reads length bytes, or up to the end of the connection when
-- length is nil, at most MAX_RESPONSE.
local function read_body(sock, length)
  local max = _M.MAX_RESPONSE
  if length then
    if length > max then
      return nil, "response of " .. length .. " bytes, more than " .. max
    end
    local body, err = sock:receive(length)
    if not body then
      return nil, "read the body: " .. tostring(err)
    end
    return body
  end
  local parts, n = {}, 0
  while true do
    local chunk, err, partial = sock:receive(4096)
    chunk = chunk or partial
    if chunk and #chunk > 0 then
      n = n + #chunk
      if n > max then
        return nil, "response of more than " .. max .. " bytes"
      end
      parts[#parts + 1] = chunk
    end
    if err == "closed" then
      return table_concat(parts)
    elseif err then
      return nil, "read the body: " .. tostring(err)
    end
  end
end

-- post sends the DER request to the responder u (from parse_url) and
-- returns the body of a 200 answer.
function _M.post(u, request, timeouts)
  timeouts = timeouts or _M.TIMEOUTS
  local sock = ngx.socket.tcp()
  sock:settimeouts(timeouts.connect, timeouts.send, timeouts.read)
  local ok, err = sock:connect(u.host, u.port)
  if not ok then
    if err and string_find(err, "no resolver defined", 1, true) then
      return nil, "connect to " .. u.host_header .. ": nginx.conf has no resolver line"
        .. " (the controller writes one from the nameservers of /etc/resolv.conf), so"
        .. " the responder's host name cannot be resolved"
    end
    return nil, "connect to " .. u.host_header .. ": " .. tostring(err)
  end
  local head = table_concat({
    "POST ", u.path, " HTTP/1.0\r\n",
    "Host: ", u.host_header, "\r\n",
    "Content-Type: application/ocsp-request\r\n",
    "Accept: application/ocsp-response\r\n",
    "Content-Length: ", #request, "\r\n",
    "Connection: close\r\n\r\n",
  })
  ok, err = sock:send({ head, request })
  if not ok then
    sock:close()
    return nil, "send to " .. u.host_header .. ": " .. tostring(err)
  end
  local status, length
  status, length, err = read_headers(sock)
  if not status then
    sock:close()
    return nil, u.host_header .. ": " .. err
  end
  if status ~= 200 then
    sock:close()
    return nil, u.host_header .. " answered HTTP " .. status
  end
  local body
  body, err = read_body(sock, length)
  sock:close()
  if not body then
    return nil, u.host_header .. ": " .. err
  end
  if body == "" then
    return nil, u.host_header .. " answered an empty body"
  end
  return body
end

-- DER reading: enough of ASN.1 to find the nextUpdate times of a response.

-- tlv reads the element at pos of s: its tag, the first and last index of
-- its content, and the index after it.
local function tlv(s, pos, limit)
  local tag, len = string_byte(s, pos, pos + 1)
  if not len then
    return nil
  end
  local first = pos + 2
  if len >= 0x80 then
    local n = len - 0x80
    if n < 1 or n > 3 then
      return nil
    end
    len = 0
    for i = 0, n - 1 do
      local b = string_byte(s, first + i)
      if not b then
        return nil
      end
      len = len * 256 + b
    end
    first = first + n
  end
  local last = first + len - 1
  if last > limit then
    return nil
  end
  return tag, first, last, last + 1
end

-- days_from_civil is the number of days from 1970-01-01 to y-m-d
-- (proleptic Gregorian calendar).
local function days_from_civil(y, m, d)
  if m <= 2 then
    y = y - 1
  end
  local era = (y - y % 400) / 400 -- floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = (153 * mp + 2 - (153 * mp + 2) % 5) / 5 + d - 1
  local doe = yoe * 365 + (yoe - yoe % 4) / 4 - (yoe - yoe % 100) / 100 + doy
  return era * 146097 + doe - 719468
end

-- generalized_time converts "YYYYMMDDHHMMSS[.fff]Z" to Unix seconds.
function _M.generalized_time(v)
  local y, mo, d, h, mi, sec = string_match(v, "^(%d%d%d%d)(%d%d)(%d%d)(%d%d)(%d%d)(%d%d)%.?%d*Z$")
  if not y then
    return nil
  end
  y, mo, d, h, mi, sec = tonumber(y), tonumber(mo), tonumber(d), tonumber(h), tonumber(mi), tonumber(sec)
  if mo < 1 or mo > 12 or d < 1 or d > 31 or h > 23 or mi > 59 or sec > 60 then
    return nil
  end
  return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec
end

-- enter returns the content bounds of the element at pos when its tag is
-- want.
local function enter(s, pos, limit, want)
  local tag, first, last, after = tlv(s, pos, limit)
  if tag ~= want then
    return nil
  end
  return first, last, after
end

-- next_update returns the earliest nextUpdate (Unix seconds) of the single
-- responses of a DER OCSPResponse, nil when none has one (or the response
-- cannot be read; validate it first).
function _M.next_update(resp)
  local limit = #resp
  -- OCSPResponse ::= SEQUENCE { responseStatus, [0] EXPLICIT ResponseBytes }
  local first, last = enter(resp, 1, limit, 0x30)
  if not first then return nil end
  local _, _, _, pos = tlv(resp, first, last) -- responseStatus
  if not pos then return nil end
  first, last = enter(resp, pos, last, 0xa0)
  if not first then return nil end
  -- ResponseBytes ::= SEQUENCE { responseType OID, response OCTET STRING }
  first, last = enter(resp, first, last, 0x30)
  if not first then return nil end
  _, _, _, pos = tlv(resp, first, last)
  if not pos then return nil end
  first, last = enter(resp, pos, last, 0x04)
  if not first then return nil end
  -- BasicOCSPResponse ::= SEQUENCE { tbsResponseData ResponseData, … }
  first, last = enter(resp, first, last, 0x30)
  if not first then return nil end
  first, last = enter(resp, first, last, 0x30)
  if not first then return nil end
  -- ResponseData ::= SEQUENCE { [0] version OPTIONAL, responderID,
  -- producedAt, responses SEQUENCE OF SingleResponse, … }
  pos = first
  local tag, after
  tag, _, _, after = tlv(resp, pos, last)
  if tag == 0xa0 then
    pos = after
    tag, _, _, after = tlv(resp, pos, last)
  end
  if tag ~= 0xa1 and tag ~= 0xa2 then return nil end -- responderID
  tag, _, _, after = tlv(resp, after, last)
  if tag ~= 0x18 then return nil end -- producedAt
  first, last = enter(resp, after, last, 0x30)
  if not first then return nil end
  local earliest
  pos = first
  while pos <= last do
    -- SingleResponse ::= SEQUENCE { certID, certStatus, thisUpdate,
    -- nextUpdate [0] EXPLICIT GeneralizedTime OPTIONAL, … }
    local sfirst, slast, snext = enter(resp, pos, last, 0x30)
    if not sfirst then return nil end
    local p = sfirst
    for _ = 1, 3 do -- certID, certStatus, thisUpdate
      _, _, _, p = tlv(resp, p, slast)
      if not p then return nil end
    end
    if p <= slast then
      local nfirst, nlast = enter(resp, p, slast, 0xa0)
      if nfirst then
        local tfirst, tlast = enter(resp, nfirst, nlast, 0x18)
        local t = tfirst and _M.generalized_time(string_sub(resp, tfirst, tlast))
        if t and (not earliest or t < earliest) then
          earliest = t
        end
      end
    end
    pos = snext
  end
  return earliest
end

-- fetch asks the responder of the DER chain (the certificate, then its
-- issuer) for a response and validates it. It returns the response and
-- its nextUpdate (nil when it has none), or nil, an error and whether the
-- error is the certificate's own (no responder URL, no issuer in the
-- chain, not an http URL: asking again will not help).
function _M.fetch(der_chain, timeouts)
  local url, err = ocsp.get_ocsp_responder_from_der_chain(der_chain)
  if not url then
    if err then
      return nil, nil, "no OCSP responder: " .. err
        .. " (the certificate Secret's tls.crt must hold the issuer after the certificate)", true
    end
    return nil, nil, "no OCSP responder: the certificate has no OCSP URL in its Authority Information Access", true
  end
  local request
  request, err = ocsp.create_ocsp_request(der_chain)
  if not request then
    return nil, nil, "make the OCSP request: " .. tostring(err)
      .. " (the certificate Secret's tls.crt must hold the issuer after the certificate)", true
  end
  local u
  u, err = _M.parse_url(url)
  if not u then
    return nil, nil, err, true
  end
  local resp
  resp, err = _M.post(u, request, timeouts)
  if not resp then
    return nil, nil, "ask " .. url .. ": " .. err
  end
  local ok
  ok, err = ocsp.validate_ocsp_response(resp, der_chain)
  if not ok then
    return nil, nil, "the response of " .. url .. " is not usable: " .. tostring(err)
  end
  return resp, _M.next_update(resp)
end

return _M
