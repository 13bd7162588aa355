-- canary: decides, per request, whether a request for a primary backend goes
-- to one of its alternative (canary) backends, as ingress-nginx does:
--
--   1. a request bound to the primary (its sticky cookie) stays there;
--   2. alternatives without endpoints are skipped; a request bound to an
--      alternative (its sticky cookie) goes there;
--   3. by header (trafficShapingPolicy.header): with headerValue, that exact
--      value sends the request to the canary; else with headerPattern, a
--      value matching that PCRE; else "always" sends it and "never" rules
--      this canary out of the next steps; a pattern that does not compile
--      (or headerPatternInvalid, which the controller sends instead of an
--      invalid pattern) rules it out too, as ingress-nginx's failed match
--      sends the request to the primary;
--   4. by cookie (trafficShapingPolicy.cookie): "always" sends it, "never"
--      rules this canary out;
--   5. by weight: weight out of weightTotal (100 unless weightTotal is
--      larger, as ingress-nginx reads it) sends it.
--
-- Each step looks at the alternatives in the order of the primary's
-- alternativeBackends before the next step starts; with one alternative
-- (ingress-nginx's case) this is exactly ingress-nginx's decision. A
-- headerPattern that does not compile is logged and rules its canary out.
local ngx = ngx
local ngx_log = ngx.log
local ngx_ERR = ngx.ERR
local ngx_re_find = ngx.re.find
local type = type
local ipairs = ipairs
local tonumber = tonumber
local math_floor = math.floor
local math_random = math.random
local string_gsub = string.gsub
local string_lower = string.lower

local _M = {}

local function text(v)
  if type(v) == "string" and v ~= "" then
    return v
  end
  return nil
end

-- compile turns a trafficShapingPolicy object into what choose reads: the
-- nginx variable names of the header and cookie, the value, pattern and
-- weights. It returns nil when there is no policy.
function _M.compile(tsp)
  if type(tsp) ~= "table" then
    return nil
  end
  local p = {}
  local header = text(tsp.header)
  if header then
    p.header_var = "http_" .. string_lower((string_gsub(header, "-", "_")))
    p.header_value = text(tsp.headerValue)
    p.header_pattern = text(tsp.headerPattern)
    p.header_refused = tsp.headerPatternInvalid == true
  end
  local cookie = text(tsp.cookie)
  if cookie then
    p.cookie_var = "cookie_" .. cookie
  end
  p.weight = math_floor(tonumber(tsp.weight) or 0)
  local total = math_floor(tonumber(tsp.weightTotal) or 0)
  if total <= 100 then
    total = 100
  end
  p.total = total
  return p
end

-- choose returns the balancer that serves the request: primary or the
-- balancer of one of alternatives (names); lookup(name) returns the
-- balancer of a backend and its compiled policy.
function _M.choose(primary, alternatives, lookup)
  if primary.is_affinitized and primary:is_affinitized() then
    return primary
  end
  local candidates, chosen_policies = {}, {}
  for _, name in ipairs(alternatives) do
    local b, p = lookup(name)
    if b and b:size() > 0 then
      if b.is_affinitized and b:is_affinitized() then
        return b
      end
      if p then
        candidates[#candidates + 1] = b
        chosen_policies[#chosen_policies + 1] = p
      end
    end
  end
  local n = #candidates
  if n == 0 then
    return primary
  end
  local var = ngx.var
  local out = {}
  for i = 1, n do
    local p = chosen_policies[i]
    local value = p.header_var and var[p.header_var]
    if value then
      if p.header_value then
        if value == p.header_value then
          return candidates[i]
        end
      elseif p.header_refused then
        out[i] = true
      elseif p.header_pattern then
        local from, _, err = ngx_re_find(value, p.header_pattern, "jo")
        if from then
          return candidates[i]
        end
        if err then
          ngx_log(ngx_ERR, "canary: canary-by-header-pattern ", p.header_pattern, ": ", err)
          out[i] = true
        end
      elseif value == "always" then
        return candidates[i]
      elseif value == "never" then
        out[i] = true
      end
    end
  end
  for i = 1, n do
    local p = chosen_policies[i]
    if not out[i] and p.cookie_var then
      local value = var[p.cookie_var]
      if value == "always" then
        return candidates[i]
      elseif value == "never" then
        out[i] = true
      end
    end
  end
  for i = 1, n do
    local p = chosen_policies[i]
    if not out[i] and p.weight > 0 and math_random(p.total) <= p.weight then
      return candidates[i]
    end
  end
  return primary
end

return _M
