-- backends_by_name: each backend's JSON on its own in the shared dict
-- backends_by_name, beside the versioned array that configuration.lua
-- publishes in configuration_data (the source
-- of truth: GET /configuration/backends, the entries kept of a partly bad
-- POST), so that a worker decodes a backend only when a request needs it
-- and, on a new version, forgets only the backends that version changed.
-- At 100,000 Ingresses the array is 57 MB: decoding it whole cost each
-- worker 2.3 s at its start and at every endpoint change (serving nothing
-- meanwhile), and its decoded tables hundreds of MB per worker.
--
-- A dict of its own: its entries never split the pages that the array
-- needs in one piece (57 MB at 100,000 Ingresses), and a reload that
-- resizes it alone gets it filled again from the array by the master
-- (configuration.init).
--
-- Keys: "b:<name>" the backend's JSON; "b:names" the names of the current
-- set, each followed by "\n"; "bc:<epoch>:<v>" the names whose entry version v of
-- the array added, changed or removed, each followed by "\n" (absent:
-- unknown, and a reader forgets every backend). A publish, under the lock
-- "b:lock" (configuration.lua): stage() writes the entries of the new set
-- (what they replace is kept in memory), the array is published (its
-- version moves), then commit() writes "bc:<v>" and deletes the entries of
-- the names that left; when the array does not publish, rollback() puts the
-- old entries back. A reader that sees the new version before "bc:<v>"
-- forgets every backend and reads each again from its entry, which is the
-- new one already; a reader still on the old version may read an entry of
-- the new set early, which its next version names again.
local cjson = require("cjson.safe")
local store = require("store")

local ngx = ngx
local pairs = pairs
local ipairs = ipairs
local tostring = tostring
local tonumber = tonumber
local string_find = string.find
local string_sub = string.sub
local table_concat = table.concat

local NAMES = "b:names"
local LOCK = "b"
-- the change lists kept: a reader further behind forgets every backend
local KEEP_CHANGES = 64

local _M = {}

local function entry_key(name)
  return "b:" .. name
end

-- The versions of the array count from 1 in each configuration_data zone
-- (store.lua), and backends_by_name may outlive a zone (a reload that
-- resizes configuration_data alone): a change list is keyed by the zone's
-- epoch (configuration.lua) too.
local function change_key(epoch, version)
  return "bc:" .. tostring(epoch) .. ":" .. tostring(version)
end

-- split returns the names of a "\n"-terminated list, as a list and a set.
local function split(text)
  local list, set = {}, {}
  if not text then
    return list, set
  end
  local pos = 1
  while true do
    local nl = string_find(text, "\n", pos, true)
    if not nl then
      return list, set
    end
    local name = string_sub(text, pos, nl - 1)
    list[#list + 1] = name
    set[name] = true
    pos = nl + 1
  end
end

-- lock and unlock serialize the publishes of backends (stage, the array,
-- commit): two POSTs at once must not mix their entries.
function _M.lock(dict)
  return store.lock(dict, LOCK)
end

function _M.unlock(dict)
  store.unlock(dict, LOCK)
end

-- stage writes the entry of each backend of list (decoded, each with a
-- name) whose JSON differs from the stored one. It returns what commit and
-- rollback need, or nil and an error (store.ERR_TOO_LARGE when an entry
-- does not fit: what it wrote is put back first).
function _M.stage(dict, list)
  local staged = { old = {}, changed = {}, names = {} }
  local old_list = split(dict:get(NAMES))
  staged.gone = {}
  local names = {}
  for i = 1, #list do
    local b = list[i]
    local name = b.name
    names[name] = true
    staged.names[#staged.names + 1] = name
    local text, eerr = cjson.encode(b)
    if not text then
      _M.rollback(dict, staged)
      return nil, "backend " .. tostring(name) .. ": cannot encode: " .. tostring(eerr)
    end
    local key = entry_key(name)
    local previous = dict:get(key)
    if previous ~= text then
      local ok, err = dict:safe_set(key, text)
      if not ok then
        _M.rollback(dict, staged)
        return nil, err
      end
      staged.old[name] = previous or false
      staged.changed[#staged.changed + 1] = name
    end
  end
  for _, name in ipairs(old_list) do
    if not names[name] then
      staged.gone[#staged.gone + 1] = name
    end
  end
  return staged
end

-- rollback puts back the entries that stage replaced.
function _M.rollback(dict, staged)
  for name, previous in pairs(staged.old) do
    if previous then
      dict:set(entry_key(name), previous)
    else
      dict:delete(entry_key(name))
    end
  end
end

-- commit records the changes of the array's version and deletes the
-- entries of the names that left.
function _M.commit(dict, staged, epoch, version)
  local changes = staged.changed
  for _, name in ipairs(staged.gone) do
    changes[#changes + 1] = name
  end
  local text = #changes > 0 and table_concat(changes, "\n") .. "\n" or ""
  local ok, err = dict:safe_set(change_key(epoch, version), text)
  if not ok then
    -- readers forget every backend: slower, never wrong
    ngx.log(ngx.WARN, "backends: cannot record the changes of version ", version, ": ", err)
  end
  for _, name in ipairs(staged.gone) do
    dict:delete(entry_key(name))
  end
  local names = #staged.names > 0 and table_concat(staged.names, "\n") .. "\n" or ""
  ok, err = dict:safe_set(NAMES, names)
  if not ok then
    ngx.log(ngx.ERR, "backends: cannot store the names of version ", version, ": ", err)
  end
  dict:delete(change_key(epoch, version - KEEP_CHANGES))
end

-- empty tells whether dict holds no set of backends (a new zone).
function _M.empty(dict)
  return dict:get(NAMES) == nil
end

-- get returns the JSON of the backend called name, nil when there is none.
function _M.get(dict, name)
  return dict:get(entry_key(name))
end

-- changed returns the names whose entries changed from version from to
-- version to, or nil when that is not known (every backend then counts
-- as changed).
function _M.changed(dict, epoch, from, to)
  from, to = tonumber(from), tonumber(to)
  if not from or not to or to <= from or to - from > KEEP_CHANGES then
    return nil
  end
  local out = {}
  for v = from + 1, to do
    local text = dict:get(change_key(epoch, v))
    if not text then
      return nil
    end
    local list = split(text)
    for i = 1, #list do
      out[#out + 1] = list[i]
    end
  end
  return out
end

return _M
