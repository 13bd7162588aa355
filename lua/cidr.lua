-- cidr: source ranges of the Lua router (router.lua), checked as nginx's
-- access module checks allow/deny: parse() reads "a.b.c.d[/n]" or an IPv6
-- address or network (as util.is_ipv6 accepts it) into its bytes and
-- prefix length; contains() tells whether a client address in binary form
-- ($binary_remote_addr: 4 or 16 bytes) is in it. An IPv4-mapped IPv6
-- client ("::ffff:a.b.c.d") is matched against the IPv4 networks as the
-- IPv4 address it maps, as nginx does. No state, no side effects.
local util = require("util")
local bit = require("bit")

local type = type
local tonumber = tonumber
local math_floor = math.floor
local string_match = string.match
local string_sub = string.sub
local string_byte = string.byte
local string_char = string.char
local string_find = string.find
local string_gmatch = string.gmatch
local string_rep = string.rep
local table_concat = table.concat
local band = bit.band

local _M = {}

local V4_MAPPED = string_rep("\0", 10) .. "\255\255"

local function ipv4_bytes(s)
  local a, b, c, d = string_match(s, "^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
  return string_char(tonumber(a), tonumber(b), tonumber(c), tonumber(d))
end

-- groups returns the 16-bit groups of part ("a:b:c") as 2-byte strings.
local function groups(part, out)
  if part == "" then
    return out
  end
  for g in string_gmatch(part .. ":", "([^:]*):") do
    local n = tonumber(g, 16)
    out[#out + 1] = string_char(math_floor(n / 256), n % 256)
  end
  return out
end

-- ipv6_bytes returns the 16 bytes of s, which util.is_ipv6 accepted.
local function ipv6_bytes(s)
  local v4 = ""
  local body = s
  local tail4 = string_match(s, ":(%d+%.%d+%.%d+%.%d+)$")
  if tail4 then
    v4 = ipv4_bytes(tail4)
    body = string_sub(s, 1, #s - #tail4)
    if string_sub(body, -2) ~= "::" then
      body = string_sub(body, 1, #body - 1)
    end
  end
  local total = tail4 and 6 or 8
  local dbl = string_find(body, "::", 1, true)
  local left, right
  if dbl then
    left = groups(string_sub(body, 1, dbl - 1), {})
    right = groups(string_sub(body, dbl + 2), {})
  else
    left, right = groups(body, {}), {}
  end
  local zeros = total - #left - #right
  return table_concat(left) .. string_rep("\0\0", zeros) .. table_concat(right) .. v4
end

-- parse returns {bytes = 4 or 16 bytes, bits = prefix length} for an
-- address or network, or nil and the reason.
function _M.parse(s)
  if type(s) ~= "string" then
    return nil, "must be a string"
  end
  local addr, bits = string_match(s, "^([^/]+)/(%d+)$")
  if not addr then
    addr = s
  end
  local bytes, max
  if util.is_ipv4(addr) then
    bytes, max = ipv4_bytes(addr), 32
  elseif util.is_ipv6(addr) then
    bytes, max = ipv6_bytes(addr), 128
  else
    return nil, s .. " is not an IP address or network"
  end
  local n = bits and tonumber(bits) or max
  if n > max then
    return nil, s .. ": the prefix length is larger than " .. max
  end
  return { bytes = bytes, bits = n }
end

-- contains tells whether the binary address bin is in net (from parse).
function _M.contains(net, bin)
  local nb = net.bytes
  if #bin == 16 and #nb == 4 then
    if string_sub(bin, 1, 12) ~= V4_MAPPED then
      return false
    end
    bin = string_sub(bin, 13)
  end
  if #bin ~= #nb then
    return false
  end
  local bits = net.bits
  local full = math_floor(bits / 8)
  if full > 0 and string_sub(bin, 1, full) ~= string_sub(nb, 1, full) then
    return false
  end
  local rest = bits % 8
  if rest == 0 then
    return true
  end
  local mask = 256 - 2 ^ (8 - rest)
  return band(string_byte(bin, full + 1), mask) == band(string_byte(nb, full + 1), mask)
end

-- any tells whether bin is in one of nets.
function _M.any(nets, bin)
  for i = 1, #nets do
    if _M.contains(nets[i], bin) then
      return true
    end
  end
  return false
end

return _M
