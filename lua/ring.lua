-- ring: a consistent-hash ring over a list of ids (endpoint "address:port"
-- strings, subset names …), used by the chash, chashsubset and sticky
-- balancers.
--
-- Each id owns POINTS points of a 32-bit circle, taken from the md5 of
-- "<id>#<n>" (four 32-bit points per md5, as ketama does); a key is hashed
-- with ngx.crc32_long and belongs to the first point at or after it. The
-- points of an id depend on that id alone, so adding or removing one of N
-- ids moves only the keys of that id: about 1/N of them.
local ngx_md5 = ngx.md5
local ngx_crc32_long = ngx.crc32_long
local tonumber = tonumber
local setmetatable = setmetatable
local string_sub = string.sub
local table_sort = table.sort
local math_floor = math.floor

local POINTS = 160 -- per id; a multiple of 4

local _M = {}
_M.__index = _M

local MAX_BUCKET_BITS = 16

-- buckets returns, for the sorted 32-bit hashes, the width of a bucket
-- (2^(32-bits), about four buckets a point, at most 2^16 buckets) and the
-- first index at or after each bucket's start (#hashes + 1 past the last
-- point), at the bucket's number + 1.
local function buckets(hashes)
  local bits = 2
  while bits < MAX_BUCKET_BITS and 2 ^ (bits - 2) < #hashes do
    bits = bits + 1
  end
  local shift = 2 ^ (32 - bits)
  local first = {}
  local i = 1
  for b = 0, 2 ^ bits - 1 do
    local start = b * shift
    while i <= #hashes and hashes[i] < start do
      i = i + 1
    end
    first[b + 1] = i
  end
  return shift, first
end

-- new builds the ring of ids (a list of distinct strings). find and walk
-- answer positions in that list.
function _M.new(ids)
  local points = {}
  for owner = 1, #ids do
    local id = ids[owner]
    for n = 1, POINTS / 4 do
      local digest = ngx_md5(id .. "#" .. n)
      for k = 0, 3 do
        points[#points + 1] = { tonumber(string_sub(digest, k * 8 + 1, k * 8 + 8), 16), owner }
      end
    end
  end
  -- Ties (equal hashes) are ordered by owner so that the ring depends only
  -- on its ids.
  table_sort(points, function(a, b)
    if a[1] ~= b[1] then
      return a[1] < b[1]
    end
    return a[2] < b[2]
  end)
  local hashes, owners = {}, {}
  for i = 1, #points do
    hashes[i] = points[i][1]
    owners[i] = points[i][2]
  end
  local shift, first = buckets(hashes)
  return setmetatable({ hashes = hashes, owners = owners, size = #ids, shift = shift, first = first }, _M)
end

-- point returns the index of the first point at or after the hash of key
-- (nil for an empty ring). The bucket of the hash gives the first point at
-- or after the bucket's start; a bucket holds a quarter of a point on
-- average, so the point found is nearly always the one. No loop on that
-- path: LuaJIT compiles the balancer phase that calls it as one trace (a
-- binary search's loop aborted the trace of every caller, which then ran
-- in the interpreter).
local function point(self, key)
  local hashes = self.hashes
  local n = #hashes
  if n == 0 then
    return nil
  end
  local h = ngx_crc32_long(key)
  local i = self.first[math_floor(h / self.shift) + 1]
  if i > n then
    return 1
  end
  if hashes[i] >= h then
    return i
  end
  i = i + 1
  if i > n then
    return 1
  end
  if hashes[i] >= h then
    return i
  end
  -- a bucket with more than two points: on from the third
  for j = i + 1, n do
    if hashes[j] >= h then
      return j
    end
  end
  return 1
end

-- find returns the position (in the ids given to new) of the id that owns
-- key, nil for an empty ring.
function _M:find(key)
  local i = point(self, key)
  if not i then
    return nil
  end
  return self.owners[i]
end

-- walk returns the positions of the first k distinct ids met going round the
-- ring from key (fewer when the ring has fewer ids). The first is find(key);
-- removing an id changes the list only where that id was in it.
function _M:walk(key, k)
  local i = point(self, key)
  local found = {}
  if not i then
    return found
  end
  if k > self.size then
    k = self.size
  end
  local owners = self.owners
  local n = #owners
  local seen = {}
  for _ = 1, n do
    local owner = owners[i]
    if not seen[owner] then
      seen[owner] = true
      found[#found + 1] = owner
      if #found >= k then
        break
      end
    end
    i = i % n + 1
  end
  return found
end

return _M
