-- cookie: reads a request cookie by its exact (case-sensitive) name and adds
-- a Set-Cookie header to the response, keeping the Set-Cookie headers
-- already there. Used by the sticky balancer; works in the rewrite,
-- balancer and header phases.
local ngx = ngx
local type = type
local ipairs = ipairs
local tostring = tostring
local string_find = string.find
local string_sub = string.sub
local string_byte = string.byte
local table_concat = table.concat

local QUOTE = 34 -- '"'

local _M = {}

-- trim returns s[from..to] without the white space (Lua's %s: space, \t,
-- \n, \v, \f, \r) at either end.
local function trim(s, from, to)
  while from <= to do
    local b = string_byte(s, from)
    if b ~= 32 and (b < 9 or b > 13) then
      break
    end
    from = from + 1
  end
  while to >= from do
    local b = string_byte(s, to)
    if b ~= 32 and (b < 9 or b > 13) then
      break
    end
    to = to - 1
  end
  return string_sub(s, from, to)
end

-- get returns the value of the first cookie called name in the request's
-- Cookie header(s), nil when there is none. It walks the header with
-- plain finds (which LuaJIT compiles; patterns it does not): every
-- request of a sticky backend reads its cookie.
function _M.get(name)
  local header = ngx.var.http_cookie
  if type(header) ~= "string" or header == "" then
    return nil
  end
  if not string_find(header, name, 1, true) then
    return nil
  end
  local pos, n = 1, #header
  while pos <= n do
    local semi = string_find(header, ";", pos, true) or n + 1
    local eq = string_find(header, "=", pos, true)
    if eq and eq < semi and trim(header, pos, eq - 1) == name then
      local v = trim(header, eq + 1, semi - 1)
      -- A quoted value is the value without its quotes (RFC 6265).
      if #v >= 2 and string_byte(v, 1) == QUOTE and string_byte(v, -1) == QUOTE then
        return string_sub(v, 2, -2)
      end
      return v
    end
    pos = semi + 1
  end
  return nil
end

-- set adds "Set-Cookie: name=value; attributes" to the response (instead
-- of an earlier Set-Cookie of the same name). attrs may
-- hold expires (a Unix time), max_age (seconds), domain, path, secure,
-- httponly and samesite.
function _M.set(name, value, attrs)
  local parts = { name .. "=" .. value }
  if attrs.expires then
    parts[#parts + 1] = "Expires=" .. ngx.cookie_time(attrs.expires)
  end
  if attrs.max_age then
    parts[#parts + 1] = "Max-Age=" .. tostring(attrs.max_age)
  end
  if attrs.domain and attrs.domain ~= "" then
    parts[#parts + 1] = "Domain=" .. attrs.domain
  end
  if attrs.path and attrs.path ~= "" then
    parts[#parts + 1] = "Path=" .. attrs.path
  end
  if attrs.secure then
    parts[#parts + 1] = "Secure"
  end
  if attrs.httponly then
    parts[#parts + 1] = "HttpOnly"
  end
  if attrs.samesite and attrs.samesite ~= "" then
    parts[#parts + 1] = "SameSite=" .. attrs.samesite
  end
  local line = table_concat(parts, "; ")
  -- Keep the other cookies; replace one of the same name that an earlier
  -- try of this request set.
  local existing = ngx.header["Set-Cookie"]
  if type(existing) == "string" then
    existing = { existing }
  end
  local lines = {}
  if type(existing) == "table" then
    local prefix = name .. "="
    for _, l in ipairs(existing) do
      if string_sub(l, 1, #prefix) ~= prefix then
        lines[#lines + 1] = l
      end
    end
  end
  lines[#lines + 1] = line
  if #lines == 1 then
    ngx.header["Set-Cookie"] = line
  else
    ngx.header["Set-Cookie"] = lines
  end
end

-- same_site_none_compatible tells whether the browser of user_agent handles
-- SameSite=None (some old ones reject such cookies outright): the list of
-- https://www.chromium.org/updates/same-site/incompatible-clients, as
-- ingress-nginx checks it.
function _M.same_site_none_compatible(user_agent)
  if type(user_agent) ~= "string" then
    return true
  end
  local function has(s)
    return string_find(user_agent, s, 1, true) ~= nil
  end
  if has("Chrome/4") or has("Chrome/5") or has("Chrome/6") then
    return false
  end
  if has("CPU iPhone OS 12") or has("iPad; CPU OS 12") then
    return false
  end
  if has("Macintosh") and has("Intel Mac OS X 10_14") and has("Safari") and not has("Chrome") then
    return false
  end
  return true
end

return _M
