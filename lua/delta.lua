-- delta: the backends changed since the last whole array, as
-- PATCH /configuration/backends sends them and the shared dict keeps them.
--
-- A POST of the whole backends array (the "base", ingress-nginx's API)
-- costs nginx a validation of every backend in one worker and a decode of
-- the whole array in every worker: seconds at 100,000 backends. A PATCH
-- carries only what changed since that base, so an endpoint change costs
-- nginx what the change is. Its body is two JSON texts on their own lines:
--
--   {"base": "<md5 hex of the base's POST body>", "deleted": ["name", …]}
--   [ backend, … ]            (the backends added or changed since the base)
--
-- Each PATCH replaces the previous one (it is cumulative since the base,
-- so a lost or repeated PATCH changes nothing); a new whole array clears
-- it. What the dict keeps (the "backends_delta" value of store.lua) is
--
--   <base version>\n<deleted names as a JSON array>\n<backends JSON array>
--
-- with the base's store version, so that a worker never lays a delta on
-- another base than its own. The backends are the PATCH's texts byte for
-- byte (Debian's lua-cjson cannot encode an empty array as "[]" again).
local cjson = require("cjson.safe")
local util = require("util")

local type = type
local ipairs = ipairs
local tonumber = tonumber
local tostring = tostring
local string_find = string.find
local string_sub = string.sub
local table_concat = table.concat

local _M = {}

_M.NAME = "backends_delta"

-- empty is the stored text of a base just posted whole.
function _M.empty(base_version)
  return tostring(base_version) .. "\n[]\n[]"
end

-- encode makes the stored text: deleted is a list of names, array the
-- JSON array text of the backends set.
function _M.encode(base_version, deleted, array)
  local names = #deleted > 0 and cjson.encode(deleted) or "[]"
  return tostring(base_version) .. "\n" .. names .. "\n" .. array
end

-- split returns the parts of a stored text: the base version (a number),
-- the deleted names' JSON text and the backends' JSON text; nil when text
-- is not one.
function _M.split(text)
  local a = string_find(text, "\n", 1, true)
  local b = a and string_find(text, "\n", a + 1, true)
  if not b then
    return nil
  end
  local base = tonumber(string_sub(text, 1, a - 1))
  if not base then
    return nil
  end
  return base, string_sub(text, a + 1, b - 1), string_sub(text, b + 1)
end

-- is_empty tells whether a stored text changes nothing on its base.
function _M.is_empty(deleted, array)
  return deleted == "[]" and string_find(array, "^%s*%[%s*%]%s*$") ~= nil
end

-- by_name indexes a decoded backends array by name (the first entry of a
-- name wins, as validate.lua has it); an empty table for anything else.
function _M.by_name(list)
  local out = {}
  if type(list) ~= "table" then
    return out
  end
  for i = 1, #list do
    local b = list[i]
    if type(b) == "table" and type(b.name) == "string" and out[b.name] == nil then
      out[b.name] = b
    end
  end
  return out
end

-- texts_by_name returns the text of each entry of the backends JSON array
-- text by its name (the first entry of a name wins) and the names in
-- order; empty tables when text does not split into its entries. The
-- array is not decoded (util.array_names).
function _M.texts_by_name(text)
  local texts, order = {}, {}
  local starts, ends, names = util.array_names(text)
  if not starts then
    return texts, order
  end
  for i = 1, #names do
    local name = names[i]
    if name and not texts[name] then
      texts[name] = string_sub(text, starts[i], ends[i])
      order[#order + 1] = name
    end
  end
  return texts, order
end

-- decode returns the backends a stored text sets, by name, and the names
-- it deletes (a set); nil and an error when it does not decode.
function _M.decode(deleted, array)
  local names = cjson.decode(deleted)
  local list = cjson.decode(array)
  if type(names) ~= "table" or type(list) ~= "table" then
    return nil, "not JSON arrays"
  end
  local set, gone = _M.by_name(list), {}
  for i = 1, #names do
    if type(names[i]) == "string" then
      gone[names[i]] = true
    end
  end
  return set, gone
end

local HEX32 = "^" .. string.rep("%x", 32) .. "$"

-- parse splits a PATCH body: it returns the base sum, the list of deleted
-- names and the backends' JSON array text, or nil and a message.
function _M.parse(body)
  local nl = string_find(body, "\n", 1, true)
  if not nl then
    return nil, 'backends: a PATCH body is a line {"base": …, "deleted": […]}, a newline, then the JSON array of the backends added or changed'
  end
  local head = cjson.decode(string_sub(body, 1, nl - 1))
  if not util.is_object(head) or util.first_char(body) ~= "{" then
    return nil, "backends: the first line of a PATCH body must be a JSON object"
  end
  if type(head.base) ~= "string" or not string_find(head.base, HEX32) then
    return nil, "backends: base must be the md5 hex of the whole array posted last"
  end
  local deleted = head.deleted
  if deleted == nil or deleted == cjson.null then
    deleted = {}
  end
  if not util.is_array(deleted) then
    return nil, "backends: deleted must be an array of backend names"
  end
  for i = 1, #deleted do
    if type(deleted[i]) ~= "string" or deleted[i] == "" then
      return nil, "backends: deleted[" .. (i - 1) .. "] must be a backend name"
    end
  end
  return head.base, deleted, string_sub(body, nl + 1)
end

-- merge returns the whole backends array that base (the base's JSON text)
-- and a delta (its deleted names' and backends' texts) make together: the
-- base's entries in order, each replaced or left out as the delta says,
-- then the delta's new entries. Unchanged runs of the base are copied as
-- they are: no string per backend. nil and an error when a text does not
-- decode.
function _M.merge(base, deleted, array)
  local starts, ends, names = util.array_names(base)
  if not starts then
    return nil, "cannot split the base into its entries"
  end
  local set, gone = _M.decode(deleted, array)
  if not set then
    return nil, "the delta: " .. gone
  end
  local texts, order = _M.texts_by_name(array)
  local parts, used = {}, {}
  local run -- first index of the run of unchanged entries being copied
  local function flush(last)
    if run and last >= run then
      parts[#parts + 1] = string_sub(base, starts[run], ends[last])
    end
    run = nil
  end
  for i = 1, #names do
    local name = names[i]
    if name and (texts[name] or gone[name]) then
      flush(i - 1)
      if texts[name] and not used[name] then
        parts[#parts + 1] = texts[name]
        used[name] = true
      end
    elseif not run then
      run = i
    end
  end
  flush(#names)
  for _, name in ipairs(order) do
    if not used[name] then
      parts[#parts + 1] = texts[name]
    end
  end
  return "[" .. table_concat(parts, ",") .. "]"
end

return _M
