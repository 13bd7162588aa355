-- store: one versioned value per name in a shared dict, replaced without
-- losing the old value when the new one does not fit, and (when there is
-- room for both) without a moment where readers find none.
--
-- Keys for a name N: "N:version" (the number of the value that serves),
-- "N:<version>" (the value), "N:seq" (the last number handed out) and
-- "N:lock" (held while a value is published). publish stores the new value
-- under a new number beside the current one, then moves "N:version" to it,
-- then deletes the old value, so that readers never find none. A value
-- that does not fit beside the current one replaces it in place (the old
-- one is deleted first; see replace_in_place); one that does not fit alone
-- either ("no memory") changes nothing. Readers compare "N:version" to
-- what they decoded last and read the value only when it moved.
local ngx = ngx
local ngx_sleep = ngx.sleep
local ngx_now = ngx.now
local ngx_update_time = ngx.update_time
local tostring = tostring
local setmetatable = setmetatable
local math_min = math.min

local LOCK_TTL = 10      -- seconds: a crashed holder frees the lock by then
local LOCK_WAIT = 5      -- seconds that publish waits for the lock
local READ_ATTEMPTS = 4

local _M = {}

-- ErrTooLarge is the error of publish when the value does not fit.
_M.ERR_TOO_LARGE = "no memory"

local function lock(dict, name)
  local key = name .. ":lock"
  ngx_update_time()
  local deadline = ngx_now() + LOCK_WAIT
  local delay = 0.001
  while true do
    local ok, err = dict:safe_add(key, true, LOCK_TTL)
    if ok then
      return true
    end
    if err ~= "exists" then
      return nil, "lock " .. key .. ": " .. tostring(err)
    end
    ngx_update_time()
    if ngx_now() >= deadline then
      return nil, "lock " .. key .. ": still held after " .. LOCK_WAIT .. "s"
    end
    ngx_sleep(delay)
    delay = math_min(delay * 2, 0.05)
  end
end

-- replace_in_place stores value under version when it does not fit
-- beside the current value (version old): it deletes the current value
-- first, and puts it back when value does not fit alone either. Meanwhile
-- readers find "N:version" naming a value that is gone: current() then
-- answers nil and the version, and the workers keep serving what they
-- decoded before (balancer.lua, general.lua).
local function replace_in_place(dict, name, old, version, value)
  local old_key = name .. ":" .. old
  local previous = dict:get(old_key)
  dict:delete(old_key)
  local ok, err = dict:safe_set(name .. ":" .. version, value)
  if not ok and previous ~= nil then
    local put, perr = dict:safe_set(old_key, previous)
    if not put then
      ngx.log(ngx.ERR, "store: cannot put back ", old_key, " after a failed update: ", perr)
    end
  end
  return ok, err
end

-- publish makes value the current value of name. It returns the new version
-- number, or nil and an error; the error is ERR_TOO_LARGE when the value
-- does not fit in the dict even in place of the current one (nothing
-- changed then). It may wait
-- (ngx.sleep) for another publish of the same name.
function _M.publish(dict, name, value)
  local ok, err = lock(dict, name)
  if not ok then
    return nil, err
  end
  -- incr with an init value could evict other keys to make room: create
  -- the counter with safe_add, which never does.
  local version
  version, err = dict:incr(name .. ":seq", 1)
  if not version and err == "not found" then
    ok, err = dict:safe_add(name .. ":seq", 0)
    if ok or err == "exists" then
      version, err = dict:incr(name .. ":seq", 1)
    end
  end
  if not version then
    dict:delete(name .. ":lock")
    return nil, "next version: " .. tostring(err)
  end
  local old = dict:get(name .. ":version")
  ok, err = dict:safe_set(name .. ":" .. version, value)
  if not ok and err == _M.ERR_TOO_LARGE and old then
    ok, err = replace_in_place(dict, name, old, version, value)
  end
  if not ok then
    dict:delete(name .. ":lock")
    return nil, err
  end
  ok, err = dict:safe_set(name .. ":version", version)
  if not ok then
    dict:delete(name .. ":" .. version)
    dict:delete(name .. ":lock")
    return nil, err
  end
  if old then
    dict:delete(name .. ":" .. old)
  end
  dict:delete(name .. ":lock")
  return version
end

-- hold takes the lock of name (the key name .. ":lock"; wait as publish
-- does) for a caller that publishes several values as one change
-- (configuration.lua: the backends and their delta, under another name
-- than theirs); release frees it. hold returns true, or nil and an error.
function _M.hold(dict, name)
  return lock(dict, name)
end

function _M.release(dict, name)
  dict:delete(name .. ":lock")
end

-- version_keys caches name .. ":version": version() runs on every proxied
-- request, and a concatenation per call is measurable there.
local version_keys = setmetatable({}, { __index = function(t, name)
  local key = name .. ":version"
  t[name] = key
  return key
end })

-- version returns the version number of the current value of name, nil
-- before the first publish.
function _M.version(dict, name)
  return dict:get(version_keys[name])
end

-- current returns the current value of name and its version; nil, nil
-- before the first publish; nil and the version when publishes kept
-- replacing the value while it was read (read again later).
function _M.current(dict, name)
  for _ = 1, READ_ATTEMPTS do
    local version = dict:get(name .. ":version")
    if not version then
      return nil, nil
    end
    local value = dict:get(name .. ":" .. version)
    if value then
      return value, version
    end
    -- A publish replaced it between the two reads: read the new one.
  end
  return nil, dict:get(name .. ":version")
end

return _M
