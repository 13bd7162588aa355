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
  return setmetatable({ hashes = hashes, owners = owners, size = #ids }, _M)
end

-- point returns the index of the first point at or after the hash of key.
local function point(self, key)
  local hashes = self.hashes
  local h = ngx_crc32_long(key)
  local lo, hi = 1, #hashes
  if hi == 0 then
    return nil
  end
  if h > hashes[hi] then
    return 1
  end
  while lo < hi do
    local mid = math_floor((lo + hi) / 2)
    if hashes[mid] < h then
      lo = mid + 1
    else
      hi = mid
    end
  end
  return lo
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
