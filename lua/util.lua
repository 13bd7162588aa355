-- util: small helpers shared by the other modules: JSON shape checks,
-- address checks and normalisation, nginx variable expressions and the
-- lists nginx keeps in $upstream_* variables. No state, no side effects.
local type = type
local pairs = pairs
local tonumber = tonumber
local math_floor = math.floor
local string_find = string.find
local string_match = string.match
local string_gmatch = string.gmatch
local string_sub = string.sub
local string_lower = string.lower
local string_byte = string.byte
local table_concat = table.concat
local jsonscan = require("jsonscan")
local cjson = require("cjson.safe")

local _M = {}

-- is_array tells whether t is a Lua table holding only the keys 1..n (what
-- cjson makes of a JSON array). An empty table counts as an array.
function _M.is_array(t)
  if type(t) ~= "table" then
    return false
  end
  local n = 0
  for k, _ in pairs(t) do
    if type(k) ~= "number" or k < 1 or k ~= math_floor(k) then
      return false
    end
    n = n + 1
  end
  for i = 1, n do
    if t[i] == nil then
      return false
    end
  end
  return true
end

-- is_object tells whether t is a Lua table with only string keys (what cjson
-- makes of a JSON object). An empty table counts as an object.
function _M.is_object(t)
  if type(t) ~= "table" then
    return false
  end
  for k, _ in pairs(t) do
    if type(k) ~= "string" then
      return false
    end
  end
  return true
end

-- first_char returns the first non-blank character of s, which tells a JSON
-- array from a JSON object even when both decode to an empty table.
function _M.first_char(s)
  return string_match(s, "^%s*(.)")
end

-- array_spans returns where each element of the JSON array text starts
-- and ends (two lists of byte positions, in order, without the blanks
-- around the elements), or nil when text is not one JSON array (see
-- jsonscan.lua). It makes no string of its own, so that a large payload
-- can be copied in runs (configuration.lua's merged backends).
_M.array_spans = jsonscan.array

-- NAME_FIRST matches an entry whose first key is its name, with no escape
-- in it: how pkg/luaapi writes backends.
local NAME_FIRST = '^{"name":"([^"\\]*)"'

-- array_names returns the spans of the elements of the JSON array text (as
-- array_spans) and the name of each (the string of its "name" key, false
-- for an element without one), without decoding the array: an element
-- that does not start with its name is decoded alone. nil when text is not
-- one JSON array.
function _M.array_names(text)
  local starts, ends = jsonscan.array(text)
  if not starts then
    return nil
  end
  local names = {}
  for i = 1, #starts do
    local name = string_match(text, NAME_FIRST, starts[i])
    if not name then
      local entry = cjson.decode(string_sub(text, starts[i], ends[i]))
      name = type(entry) == "table" and entry.name
    end
    names[i] = type(name) == "string" and name or false
  end
  return starts, ends, names
end

-- TIGHT_GC_PAUSE and TIGHT_GC_STEPMUL are the collector's settings while
-- a large payload is decoded entry by entry: a cycle starts when memory
-- grows by 20 % (LuaJIT's default: 100 %) and runs at twice the default
-- speed. With the defaults, the garbage of a 57 MB payload's entries piles
-- up to about twice the live memory before a cycle, and LuaJIT keeps what
-- it mapped: measured on 100,000 backends, 323 MiB at the peak (129 MiB
-- with these) and 234 MiB kept after a full collection (72 MiB), for 0.5 s
-- more. A full collection every few thousand entries costs more, as each
-- one walks every live object.
local TIGHT_GC_PAUSE, TIGHT_GC_STEPMUL = 120, 400

-- tight_gc applies the tight collector settings and returns the previous
-- ones, for restore_gc.
function _M.tight_gc()
  return { collectgarbage("setpause", TIGHT_GC_PAUSE), collectgarbage("setstepmul", TIGHT_GC_STEPMUL) }
end

-- restore_gc puts back the settings tight_gc returned.
function _M.restore_gc(previous)
  collectgarbage("setpause", previous[1])
  collectgarbage("setstepmul", previous[2])
end

-- array_elements returns the text of each element of the JSON array text
-- (a list of strings, in order, without the blanks around them), or nil
-- when text does not start with "[" (see array_spans). It lets
-- configuration.lua store the accepted entries of a payload byte for byte.
function _M.array_elements(text)
  local starts, ends = _M.array_spans(text)
  if not starts then
    return nil
  end
  local out = {}
  for i = 1, #starts do
    out[i] = string_sub(text, starts[i], ends[i])
  end
  return out
end

-- port returns p as an integer port (1..65535) when p is a number or a
-- numeric string, else nil.
function _M.port(p)
  local n = tonumber(p)
  if not n or n ~= math_floor(n) or n < 1 or n > 65535 then
    return nil
  end
  return n
end

-- is_ipv4 tells whether s is a dotted-quad IPv4 address (each part 0..255,
-- no leading zeros beyond a single 0).
local function octet(part)
  return #part <= 3 and (#part == 1 or string_sub(part, 1, 1) ~= "0") and tonumber(part) <= 255
end

function _M.is_ipv4(s)
  if type(s) ~= "string" then
    return false
  end
  local a, b, c, d = string_match(s, "^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
  return a ~= nil and octet(a) and octet(b) and octet(c) and octet(d)
end

-- is_ipv6 tells whether s is an IPv6 address without brackets or zone:
-- up to eight groups of 1..4 hex digits, at most one "::", optionally
-- ending in an IPv4 address (which counts as two groups).
function _M.is_ipv6(s)
  if type(s) ~= "string" or #s < 2 or #s > 45 or not string_find(s, ":", 1, true) then
    return false
  end
  if not string_match(s, "^[%x:.]+$") then
    return false
  end
  local groups = 0
  local body = s
  local tail4 = string_match(s, ":(%d+%.%d+%.%d+%.%d+)$")
  if tail4 then
    if not _M.is_ipv4(tail4) then
      return false
    end
    body = string_sub(s, 1, #s - #tail4)
    groups = 2
    if string_sub(body, -2) ~= "::" then
      body = string_sub(body, 1, #body - 1) -- drop the ":" before the IPv4
    end
  elseif string_find(s, ".", 1, true) then
    return false
  end
  local dbl = string_find(body, "::", 1, true)
  if dbl and string_find(body, "::", dbl + 1, true) then
    return false
  end
  if string_find(body, ":::", 1, true) then
    return false
  end
  local function count(part)
    if part == "" then
      return 0
    end
    local n = 0
    for g in string_gmatch(part .. ":", "([^:]*):") do
      if not string_match(g, "^%x%x?%x?%x?$") then
        return nil
      end
      n = n + 1
    end
    return n
  end
  if dbl then
    local left = count(string_sub(body, 1, dbl - 1))
    local right = count(string_sub(body, dbl + 2))
    if not left or not right then
      return false
    end
    return left + right + groups <= 7
  end
  local n = count(body)
  return n ~= nil and n + groups == 8
end

-- is_hostname tells whether s is a DNS name (RFC 1123 labels of 1..63
-- letters, digits and inner hyphens, 253 characters at most, an optional
-- final dot) whose last label is not all digits (so "256.1.1.1", a bad IP
-- address, is no host name either).
function _M.is_hostname(s)
  if type(s) ~= "string" or s == "" then
    return false
  end
  if string_sub(s, -1) == "." then
    s = string_sub(s, 1, -2)
  end
  if #s == 0 or #s > 253 then
    return false
  end
  local last
  for label in string_gmatch(s .. ".", "([^.]*)%.") do
    if #label < 1 or #label > 63 or not string_match(label, "^[%w]") or not string_match(label, "[%w]$")
        or string_find(label, "[^%w%-]") then
      return false
    end
    last = label
  end
  return not string_match(last, "^%d+$")
end

-- valid_address tells whether addr may be an endpoint address: an IP
-- literal (IPv6 also in brackets) or a DNS name.
function _M.valid_address(addr)
  if type(addr) ~= "string" then
    return false
  end
  local inner = string_match(addr, "^%[(.*)%]$")
  if inner then
    return _M.is_ipv6(inner)
  end
  return _M.is_ipv4(addr) or _M.is_ipv6(addr) or _M.is_hostname(addr)
end

-- peer_address returns the address in the form ngx.balancer.set_current_peer
-- accepts (IPv6 in brackets), or nil when addr is not an IP literal (an
-- ExternalName host, for example).
function _M.peer_address(addr)
  if type(addr) ~= "string" or addr == "" then
    return nil
  end
  if _M.is_ipv4(addr) then
    return addr
  end
  local inner = string_match(addr, "^%[(.*)%]$")
  if inner then
    if _M.is_ipv6(inner) then
      return addr
    end
    return nil
  end
  if _M.is_ipv6(addr) then
    return "[" .. addr .. "]"
  end
  return nil
end

-- compile_expression splits an nginx variable expression such as
-- "$host$request_uri" or "user-${http_x_user}" into a list of parts: a
-- string is literal text, a table {var = name} a variable (lower-cased, as
-- nginx names them); with captures, "$1".."$9" are {cap = n}, a regex's
-- captures (one digit, as nginx reads them).
function _M.compile_expression(expr, captures)
  local parts = {}
  local literal = {}
  local i, n = 1, #expr
  while i <= n do
    local c = string_sub(expr, i, i)
    local name, next_i
    local cap = captures and c == "$" and string_match(expr, "^%$([1-9])", i)
    if cap then
      name, next_i = tonumber(cap), i + 2
    elseif c == "$" then
      local braced = string_match(expr, "^%${([%w_]+)}", i)
      if braced then
        name, next_i = braced, i + #braced + 3
      else
        local plain = string_match(expr, "^%$([%w_]+)", i)
        if plain then
          name, next_i = plain, i + #plain + 1
        end
      end
    end
    if name then
      if #literal > 0 then
        parts[#parts + 1] = table_concat(literal)
        literal = {}
      end
      if cap then
        parts[#parts + 1] = { cap = name }
      else
        parts[#parts + 1] = { var = string_lower(name) }
      end
      i = next_i
    else
      literal[#literal + 1] = c
      i = i + 1
    end
  end
  if #literal > 0 then
    parts[#parts + 1] = table_concat(literal)
  end
  return parts
end

-- expand evaluates compiled parts against the request's variables; an
-- unset variable counts as "".
function _M.expand(parts)
  local var = ngx.var
  if #parts == 1 then
    local p = parts[1]
    if type(p) == "string" then
      return p
    end
    return var[p.var] or ""
  end
  local out = {}
  for i = 1, #parts do
    local p = parts[i]
    if type(p) == "string" then
      out[i] = p
    else
      out[i] = var[p.var] or ""
    end
  end
  return table_concat(out)
end

-- last_value returns the last element of an $upstream_* list ("a, b : c"
-- names one value per try, ", " within and " : " across upstream groups).
function _M.last_value(s)
  if type(s) ~= "string" or s == "" then
    return nil
  end
  return string_match(s, "([^%s,]+)%s*$")
end

-- last_seconds returns the last value of an $upstream_*_time list ("0.004",
-- "0.002, 1.250 : 0.001") as a number of seconds, nil when it is none
-- ("-"). nginx writes every value as seconds, a dot and three digits of
-- milliseconds; a value under 10 s is read from its five bytes here, any
-- other by tonumber. tonumber alone costs about 750 instructions, in the
-- log phase of every request an ewma balancer measures: LuaJIT converts
-- a decimal fraction through its exact, slow path. (No loop: a loop of a
-- digit or two leaves its compiled trace at every end, which costs more.)
function _M.last_seconds(s)
  if type(s) ~= "string" then
    return nil
  end
  local n = #s
  if n >= 5 then
    local sec, dot, m1, m2, m3 = string_byte(s, n - 4, n)
    local before = n > 5 and string_byte(s, n - 5) or 32
    if dot == 46 and (before == 32 or before == 44)
      and sec >= 48 and sec <= 57 and m1 >= 48 and m1 <= 57
      and m2 >= 48 and m2 <= 57 and m3 >= 48 and m3 <= 57 then
      return ((sec - 48) * 1000 + (m1 - 48) * 100 + (m2 - 48) * 10 + (m3 - 48)) / 1000
    end
  end
  return tonumber(_M.last_value(s))
end

-- tried_peers returns a set of the "address:port" values in
-- $upstream_addr: the peers this request has tried so far.
function _M.tried_peers(s)
  local set = {}
  if type(s) == "string" then
    for addr in string_gmatch(s, "[^%s,]+") do
      if addr ~= ":" then
        set[addr] = true
      end
    end
  end
  return set
end

-- wildcard returns the "*." name that covers host as a classic
-- server_name of ingress-nginx's "*.": host without its first label, that
-- label made of letters, digits, "_" and "-"; nil when host has none.
function _M.wildcard(host)
  local dot = string_find(host, ".", 2, true)
  if dot and string_match(string_sub(host, 1, dot - 1), "^[%w_-]+$") then
    return "*" .. string_sub(host, dot)
  end
  return nil
end

-- server_name is a server name (SNI, Host) as nginx compares it: lower
-- case, without a final dot; "" for nil.
function _M.server_name(name)
  name = string.lower(name or "")
  if string_sub(name, -1) == "." then
    name = string_sub(name, 1, -2)
  end
  return name
end

-- prefix_path is name (relative) under nginx's prefix, where nginx.conf
-- and the files the controller lays out are.
function _M.prefix_path(name)
  local prefix = ngx.config.prefix()
  if string_sub(prefix, -1) ~= "/" then
    prefix = prefix .. "/"
  end
  return prefix .. name
end

-- read_file returns the whole content of the file at path, or nil and
-- the error.
function _M.read_file(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local data = f:read("*a")
  f:close()
  return data
end

-- set_request_header sets the request header name that the backend gets,
-- replacing every header of that name the client sent; an empty value
-- removes them, as a classic location's proxy_set_header sends no header
-- with an empty value. The router sets these headers only on the routes
-- that have them, where a proxy_set_header line with a variable would cost
-- every request its evaluation.
function _M.set_request_header(name, value)
  if value == nil or value == "" then
    return ngx.req.clear_header(name)
  end
  return ngx.req.set_header(name, value)
end

-- escape_args is nginx's ngx_escape_uri with NGX_ESCAPE_ARGS, which its
-- rewrite module applies to the captures it copies into arguments: a
-- control byte, space, "#", "%", "&", "+", ";", "?", DEL and a byte above
-- it become "%XX" (ngx.escape_uri's type 1 leaves "&" and ";", which would
-- let a capture add arguments of its own).
function _M.escape_args(s)
  return (string.gsub(s, "[%z\1-\32#%%&+;?\127-\255]", function(c)
    return string.format("%%%02X", string.byte(c))
  end))
end

return _M
