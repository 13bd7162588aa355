-- general: the general settings object that POST /configuration/general
-- stores (JSON in the shared dict configuration_data, see store.lua), for
-- Lua code that reads a setting at request time. Each worker keeps the
-- decoded object and decodes again only when the stored version moved, so
-- get() costs one shared-dict read per call and a POST is seen by the next
-- request on every worker.
local cjson = require("cjson.safe")
local store = require("store")

local ngx = ngx
local type = type

local _M = {}

local NAME = "general"

local cached = {}
local cached_version -- nil: nothing decoded yet

-- get returns the general settings as a table ({} before any POST). The
-- table is shared: callers must not change it.
function _M.get()
  local dict = ngx.shared.configuration_data
  local version = store.version(dict, NAME)
  if version == cached_version then
    return cached
  end
  local raw, v = store.current(dict, NAME)
  if not raw then
    if v == nil then -- never posted
      cached, cached_version = {}, nil
    end
    return cached
  end
  local decoded = cjson.decode(raw)
  if type(decoded) == "table" then -- configuration.lua stored only objects
    cached = decoded
  end
  cached_version = v
  return cached
end

-- raw returns the stored JSON text, "{}" before any POST.
function _M.raw()
  local raw = store.current(ngx.shared.configuration_data, NAME)
  return raw or "{}"
end

_M.NAME = NAME

return _M
