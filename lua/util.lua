-- util: small helpers shared by the other modules: JSON shape checks and
-- endpoint normalisation. No state, no side effects.
local type = type
local pairs = pairs
local tonumber = tonumber
local math_floor = math.floor
local string_find = string.find
local string_match = string.match

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

-- port returns p as an integer port (1..65535) when p is a number or a
-- numeric string, else nil.
function _M.port(p)
  local n = tonumber(p)
  if not n or n ~= math_floor(n) or n < 1 or n > 65535 then
    return nil
  end
  return n
end

-- peer_address returns the address in the form ngx.balancer.set_current_peer
-- accepts (IPv6 in brackets), or nil when addr is not an IP literal (an
-- ExternalName host, for example).
function _M.peer_address(addr)
  if type(addr) ~= "string" or addr == "" then
    return nil
  end
  if string_match(addr, "^%d+%.%d+%.%d+%.%d+$") then
    return addr
  end
  if string_match(addr, "^%[[%x:.]+%]$") then
    return addr
  end
  if string_find(addr, ":", 1, true) and string_match(addr, "^[%x:.]+$") then
    return "[" .. addr .. "]"
  end
  return nil
end

return _M
