-- cookie: reads a request cookie by its exact (case-sensitive) name and adds
-- a Set-Cookie header to the response, keeping the Set-Cookie headers
-- already there. Used by the sticky balancer; works in the rewrite,
-- balancer and header phases.
local ngx = ngx
local type = type
local ipairs = ipairs
local tostring = tostring
local string_find = string.find
local string_sub = string.sub
local string_match = string.match
local string_gmatch = string.gmatch
local table_concat = table.concat

local _M = {}

-- get returns the value of the first cookie called name in the request's
-- Cookie header(s), nil when there is none.
function _M.get(name)
  local header = ngx.var.http_cookie
  if type(header) ~= "string" or header == "" then
    return nil
  end
  if not string_find(header, name, 1, true) then
    return nil
  end
  for pair in string_gmatch(header, "[^;]+") do
    local eq = string_find(pair, "=", 1, true)
    if eq then
      local k = string_match(string_sub(pair, 1, eq - 1), "^%s*(.-)%s*$")
      if k == name then
        local v = string_match(string_sub(pair, eq + 1), "^%s*(.-)%s*$")
        -- A quoted value is the value without its quotes (RFC 6265).
        return string_match(v, '^"(.*)"$') or v
      end
    end
  end
  return nil
end

-- set adds "Set-Cookie: name=value; attributes" to the response (instead
-- of an earlier Set-Cookie of the same name). attrs may
-- hold expires (a Unix time), max_age (seconds), domain, path, secure,
-- httponly and samesite.
function _M.set(name, value, attrs)
  local parts = { name .. "=" .. value }
  if attrs.expires then
    parts[#parts + 1] = "Expires=" .. ngx.cookie_time(attrs.expires)
  end
  if attrs.max_age then
    parts[#parts + 1] = "Max-Age=" .. tostring(attrs.max_age)
  end
  if attrs.domain and attrs.domain ~= "" then
    parts[#parts + 1] = "Domain=" .. attrs.domain
  end
  if attrs.path and attrs.path ~= "" then
    parts[#parts + 1] = "Path=" .. attrs.path
  end
  if attrs.secure then
    parts[#parts + 1] = "Secure"
  end
  if attrs.httponly then
    parts[#parts + 1] = "HttpOnly"
  end
  if attrs.samesite and attrs.samesite ~= "" then
    parts[#parts + 1] = "SameSite=" .. attrs.samesite
  end
  local line = table_concat(parts, "; ")
  -- Keep the other cookies; replace one of the same name that an earlier
  -- try of this request set.
  local existing = ngx.header["Set-Cookie"]
  if type(existing) == "string" then
    existing = { existing }
  end
  local lines = {}
  if type(existing) == "table" then
    local prefix = name .. "="
    for _, l in ipairs(existing) do
      if string_sub(l, 1, #prefix) ~= prefix then
        lines[#lines + 1] = l
      end
    end
  end
  lines[#lines + 1] = line
  if #lines == 1 then
    ngx.header["Set-Cookie"] = line
  else
    ngx.header["Set-Cookie"] = lines
  end
end

-- same_site_none_compatible tells whether the browser of user_agent handles
-- SameSite=None (some old ones reject such cookies outright): the list of
-- https://www.chromium.org/updates/same-site/incompatible-clients, as
-- ingress-nginx checks it.
function _M.same_site_none_compatible(user_agent)
  if type(user_agent) ~= "string" then
    return true
  end
  local function has(s)
    return string_find(user_agent, s, 1, true) ~= nil
  end
  if has("Chrome/4") or has("Chrome/5") or has("Chrome/6") then
    return false
  end
  if has("CPU iPhone OS 12") or has("iPad; CPU OS 12") then
    return false
  end
  if has("Macintosh") and has("Intel Mac OS X 10_14") and has("Safari") and not has("Chrome") then
    return false
  end
  return true
end

return _M
