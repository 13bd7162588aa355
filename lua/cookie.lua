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

-- space tells whether byte b is white space (Lua's %s: space, \t, \n,
-- \v, \f, \r).
local function space(b)
  return b == 32 or (b >= 9 and b <= 13)
end

-- trim returns s[from..to] without the white space (Lua's %s: space, \t,
-- \n, \v, \f, \r) at either end.
local function trim(s, from, to)
  while from <= to do
    local b = string_byte(s, from)
    if not space(b) then
      break
    end
    from = from + 1
  end
  while to >= from do
    local b = string_byte(s, to)
    if not space(b) then
      break
    end
    to = to - 1
  end
  return string_sub(s, from, to)
end

-- find returns the value of the first pair of header named name (nil when
-- none): the pairs split at ";", a pair's name and value at its first "=",
-- both without the white space around them, a value's quotes removed
-- (RFC 6265). It walks the header with plain finds (LuaJIT compiles them;
-- patterns it does not).
local function find(header, name)
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
_M.find = find -- for TestCookieValue

-- with_eq holds name .. "=" for the few cookie names of the config.
local with_eq, names = {}, 0

-- value_in returns the value of the cookie name in header, as find. The
-- common header (the name's first occurrence starts a pair, "=" right
-- after it, a value without white space around it) is read without a
-- loop: a loop here made LuaJIT abort the trace of the sticky balancer
-- that calls it, every request ("inner loop in root trace"), until it
-- gave up compiling it; any other header goes to find.
local function value_in(header, name)
  if name == "" then
    return find(header, name)
  end
  local first = string_find(header, name, 1, true)
  if not first then
    return nil
  end
  local eq_name = with_eq[name]
  if not eq_name then
    if names >= 1000 then
      with_eq, names = {}, 0
    end
    eq_name = name .. "="
    with_eq[name], names = eq_name, names + 1
  end
  local s, e = string_find(header, eq_name, first, true)
  if s ~= first then
    return find(header, name)
  end
  -- a pair's start: the header's, or after ";" and at most one white
  -- space
  if s > 1 then
    local b = string_byte(header, s - 1)
    if b ~= 59 and not (space(b) and (s == 2 or string_byte(header, s - 2) == 59)) then
      return find(header, name)
    end
  end
  local semi = string_find(header, ";", e + 1, true)
  local last = semi and semi - 1 or #header
  if last < e + 1 then
    return ""
  end
  local b1, b2 = string_byte(header, e + 1), string_byte(header, last)
  if space(b1) or space(b2) then
    return find(header, name)
  end
  if last > e + 1 and b1 == QUOTE and b2 == QUOTE then
    return string_sub(header, e + 2, last - 1)
  end
  return string_sub(header, e + 1, last)
end
_M.value_in = value_in -- for TestCookieValue

-- get returns the value of the first cookie called name in the request's
-- Cookie header(s), nil when there is none: every request of a sticky
-- backend reads its cookie.
function _M.get(name)
  local header = ngx.var.http_cookie
  if type(header) ~= "string" or header == "" then
    return nil
  end
  return value_in(header, name)
end

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
