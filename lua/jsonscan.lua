-- jsonscan: finds the direct children of a JSON array or object in its
-- text without decoding it, so that a large payload (100,000 backends or
-- hosts: 57 to 87 MB) is decoded and checked one entry at a time. Decoding
-- it whole makes millions of small Lua objects at once; LuaJIT's allocator
-- keeps that memory mapped after they are collected (about 180 MiB for
-- 57 MB of backends), in the master that preloads it and in every worker
-- that applies or reads it. Entry by entry, the garbage stays small.
--
-- The scan is a byte loop over the text through FFI, which LuaJIT compiles
-- (about 0.1 s for 57 MB). It checks the structure of the container itself
-- (its brackets, commas, colons, no empty child, nothing but blanks after
-- it); the caller decodes each child with cjson, which checks the rest.
local ffi = require("ffi")

local ffi_cast = ffi.cast
local string_byte = string.byte
local U8 = ffi.typeof("const uint8_t *")

local QUOTE, BACKSLASH, COMMA, COLON = 34, 92, 44, 58
local OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT = 91, 93, 123, 125

local _M = {}

-- is_blank tells whether byte c is one of JSON's blanks.
local function is_blank(c)
  return c == 32 or c == 10 or c == 13 or c == 9
end

-- solid_from returns the 0-based offset of the first non-blank byte of p
-- in [i, limit), or limit.
local function solid_from(p, i, limit)
  while i < limit and is_blank(p[i]) do
    i = i + 1
  end
  return i
end

-- solid_to returns the 0-based offset just past the last non-blank byte of
-- p in [floor, i), or floor.
local function solid_to(p, floor, i)
  while i > floor and is_blank(p[i - 1]) do
    i = i - 1
  end
  return i
end

-- children scans the container whose opening bracket is at the 0-based
-- offset open of p (n bytes). It returns the 1-based start and end of each
-- child (for an object: of each member, key and value), the offsets of each
-- member's colon (objects), and the 0-based offset just past the closing
-- bracket; nil when the container is not well formed.
local function children(p, n, open)
  local close = p[open] == OPEN_ARRAY and CLOSE_ARRAY or CLOSE_OBJECT
  local is_object = close == CLOSE_OBJECT
  local starts, ends, colons = {}, {}, {}
  local depth, in_string = 0, false
  local child = open + 1 -- where the current child begins (0-based)
  local colon = -1       -- its colon at depth 0 (objects)
  local i = open + 1
  while i < n do
    local c = p[i]
    if in_string then
      if c == BACKSLASH then
        i = i + 1
      elseif c == QUOTE then
        in_string = false
      end
    elseif c == QUOTE then
      in_string = true
    elseif c == OPEN_ARRAY or c == OPEN_OBJECT then
      depth = depth + 1
    elseif c == CLOSE_ARRAY or c == CLOSE_OBJECT then
      if depth == 0 then
        if c ~= close then
          return nil
        end
        local s, e = solid_from(p, child, i), solid_to(p, child, i)
        if s < e then
          starts[#starts + 1], ends[#ends + 1], colons[#colons + 1] = s + 1, e, colon
        elseif #starts > 0 then
          return nil -- a comma before the closing bracket
        end
        if is_object and #starts > 0 and colon < 0 then
          return nil
        end
        return starts, ends, colons, i + 1
      end
      depth = depth - 1
    elseif depth == 0 then
      if c == COMMA then
        local s, e = solid_from(p, child, i), solid_to(p, child, i)
        if s >= e or (is_object and colon < 0) then
          return nil -- an empty child, or a member without a colon
        end
        starts[#starts + 1], ends[#ends + 1], colons[#colons + 1] = s + 1, e, colon
        child, colon = i + 1, -1
      elseif c == COLON and is_object and colon < 0 then
        colon = i
      end
    end
    i = i + 1
  end
  return nil -- unterminated
end

-- whole scans the container that text holds when its first non-blank
-- byte is open (a byte of "[{") and only blanks follow its closing
-- bracket: it returns the text's bytes and children's starts, ends and
-- colons; nil otherwise.
local function whole(text, open)
  local p, n = ffi_cast(U8, text), #text
  local first = solid_from(p, 0, n)
  if first >= n or p[first] ~= open then
    return nil
  end
  local starts, ends, colons, past = children(p, n, first)
  if not starts or solid_from(p, past, n) ~= n then
    return nil
  end
  return p, starts, ends, colons
end

-- array returns where each element of the JSON array text starts and ends
-- (two lists of 1-based byte positions, in order, without the blanks
-- around the elements); nil when text is not one JSON array, blanks aside.
function _M.array(text)
  local _, starts, ends = whole(text, OPEN_ARRAY)
  return starts, ends
end

-- array_at returns the spans of the elements of the array that spans
-- [first, last] (1-based) of text, as array does; nil when that span is
-- not one JSON array.
function _M.array_at(text, first, last)
  if string_byte(text, first) ~= OPEN_ARRAY then
    return nil
  end
  local p = ffi_cast(U8, text)
  local starts, ends, _, past = children(p, last, first - 1)
  if not starts or past ~= last then
    return nil
  end
  return starts, ends
end

-- members returns the members of the JSON object text: a list of
-- {key_first, key_last, value_first, value_last} (1-based, blanks left
-- out), in order; nil when text is not one JSON object, blanks aside. The
-- keys are not decoded: a member's key is the text of a JSON string when
-- it decodes to one.
function _M.members(text)
  local p, starts, ends, colons = whole(text, OPEN_OBJECT)
  if not p then
    return nil
  end
  local out = {}
  for i = 1, #starts do
    local colon = colons[i]
    local key_last = solid_to(p, starts[i] - 1, colon)
    local value_first = solid_from(p, colon + 1, ends[i])
    if key_last < starts[i] or value_first >= ends[i] then
      return nil -- an empty key or value
    end
    out[i] = { starts[i], key_last, value_first + 1, ends[i] }
  end
  return out
end

return _M
