-- balancer_sticky: cookie session affinity (sessionAffinityConfig.name =
-- "cookie"), chosen before any other implementation, as in ingress-nginx.
--
-- The cookie (cookieSessionAffinity.name, "route" when unset) holds
-- "<key>|<backend key>", the backend key being md5(md5(name) .. name) of
-- the backend, so that a cookie of one backend is never taken for another
-- and canary routing can tell which backend a client is bound to
-- (is_affinitized). Two modes (sessionAffinityConfig.mode):
--
--   balanced (the default): the key is a random string placed on a ring of
--     the peers (ring.lua); a client keeps its endpoint while that endpoint
--     exists, and when endpoints come or go about 1/N of the clients move,
--     with the same cookie.
--   persistent: the key is md5(backend name .. "address:port") of the
--     endpoint itself (ingress-nginx's format); a client keeps its endpoint
--     while it exists and is moved, with a new cookie, when it goes away.
--
-- A client without a valid cookie gets an endpoint and, in a location that
-- cookieSessionAffinity.locations lists, the cookie, with the path
-- (cookieSessionAffinity.path, else $location_path), domain, expires (seconds from now), maxage,
-- secure (unset: only over HTTPS), samesite (left out for browsers that
-- mishandle None when conditional_samesite_none is set) and HttpOnly. On a
-- retry after a failure, change_on_failure moves the client to an endpoint
-- not tried yet and rewrites the cookie; without it the retry goes to the
-- same endpoint. cookieSessionAffinity.locations maps a host to the paths
-- of the locations whose Ingress asked for affinity, as in ingress-nginx:
-- the cookie is set only where the location's path ($location_path of a
-- classic location, the route's in Lua routing) is
-- one of the paths of the request's host (or of its one-label wildcard,
-- "*.example.com"; "_" in the catch-all server). Another Ingress's
-- location of the same backend follows a cookie it gets but never sets
-- one. See balancer_round_robin.lua for the interface.
local ring = require("ring")
local util = require("util")
local reqctx = require("reqctx")
local cookie = require("cookie")

local ngx = ngx
local ngx_md5 = ngx.md5
local ngx_re_sub = ngx.re.sub
local ipairs = ipairs
local setmetatable = setmetatable
local type = type
local tonumber = tonumber
local string_find = string.find
local string_sub = string.sub
local string_format = string.format
local math_random = math.random

local DEFAULT_COOKIE_NAME = "route"
local SEPARATOR = "|"
-- A balanced pick draws random keys until one lands on a peer not tried
-- yet; with 2 peers and one failing, 20 draws all miss with p = 1e-6.
local MAX_DRAWS = 20

local _M = { name = "sticky" }
-- wants_route: to set its cookie, balance() reads the request's route
-- (the router leaves it in reqctx when the request has no ngx.ctx).
_M.wants_route = true
_M.__index = _M

function _M.new(backend, peers, fingerprint)
  local o = setmetatable({}, _M)
  o:sync(backend, peers, fingerprint)
  return o
end

local function settings(backend)
  local affinity = backend.sessionAffinityConfig
  if type(affinity) ~= "table" then
    affinity = {}
  end
  local c = affinity.cookieSessionAffinity
  if type(c) ~= "table" then
    c = {}
  end
  local mode = affinity.mode == "persistent" and "persistent" or "balanced"
  return mode, c
end

-- sync re-reads the cookie settings every time and rebuilds the lookup
-- structures only when the peer set, the mode or the name changed.
function _M:sync(backend, peers, fingerprint)
  local mode, c = settings(backend)
  local name = backend.name
  self.cookie_name = (type(c.name) == "string" and c.name ~= "") and c.name or DEFAULT_COOKIE_NAME
  self.cookie = c
  self.change_on_failure = c.change_on_failure == true
  if self.fingerprint == fingerprint and self.mode == mode and self.name == name then
    return
  end
  self.name = name
  self.mode = mode
  self.backend_key = ngx_md5(ngx_md5(name) .. name)
  self.peers = peers
  self.fingerprint = fingerprint
  if mode == "persistent" then
    local by_hash, hash_of = {}, {}
    for i = 1, #peers do
      local h = ngx_md5(name .. peers[i].key)
      by_hash[h] = i
      hash_of[i] = h
    end
    self.by_hash, self.hash_of, self.ring = by_hash, hash_of, nil
  else
    local ids = {}
    for i = 1, #peers do
      ids[i] = peers[i].key
    end
    self.ring, self.by_hash, self.hash_of = ring.new(ids), nil, nil
  end
end

function _M:size()
  return #self.peers
end

-- parse returns the key and the backend key of the request's cookie.
function _M:parse()
  local raw = cookie.get(self.cookie_name)
  if not raw or raw == "" then
    return nil, nil
  end
  local sep = string_find(raw, SEPARATOR, 1, true)
  if not sep then
    return raw, nil
  end
  return string_sub(raw, 1, sep - 1), string_sub(raw, sep + 1)
end

-- is_affinitized tells whether the request carries this backend's cookie.
function _M:is_affinitized()
  local _, backend_key = self:parse()
  return backend_key == self.backend_key
end

-- find returns the peer index that key names, nil when it names none.
function _M:find(key)
  if self.mode == "persistent" then
    return self.by_hash[key]
  end
  return self.ring:find(key)
end

-- pick returns a peer index not in tried and the key that names it.
function _M:pick(tried)
  local peers = self.peers
  if self.mode == "persistent" then
    local left = {}
    for i = 1, #peers do
      if not tried[peers[i].key] then
        left[#left + 1] = i
      end
    end
    if #left == 0 then
      return nil
    end
    local i = left[math_random(#left)]
    return i, self.hash_of[i]
  end
  local pid = ngx.worker.pid()
  local now = ngx.now()
  for n = 1, MAX_DRAWS do
    local key = string_format("%.3f.%d.%d", now + n, pid, math_random(999999))
    local i = self.ring:find(key)
    if i and not tried[peers[i].key] then
      return i, key
    end
  end
  return nil
end

-- should_set_cookie tells whether this location sets the cookie: its host
-- (host: the Lua router's host entry; nil in a classic server) and
-- location_path are in cookieSessionAffinity.locations.
function _M:should_set_cookie(location_path, host)
  local locations = self.cookie.locations
  if type(locations) ~= "table" or not location_path then
    return false
  end
  -- the host entry the Lua router chose (router.lua), else the server's
  if not host then
    host = ngx.var.host
    if ngx.var.server_name == "_" then
      host = "_"
    end
  end
  local paths = locations[host]
  if type(paths) ~= "table" and host then
    local wildcard = ngx_re_sub(host, [[^[^.]+\.]], "*.", "jo")
    paths = wildcard and locations[wildcard]
  end
  if type(paths) ~= "table" then
    return false
  end
  for _, p in ipairs(paths) do
    if p == location_path then
      return true
    end
  end
  return false
end

-- request_route returns the route the Lua router chose for this request
-- and its host entry (nil, nil for a classic location): from ngx.ctx when
-- the request has one, else where the router left them (reqctx).
local function request_route()
  local ctx = reqctx.existing()
  if ctx and ctx.route then
    return ctx.route, ctx.route_host
  end
  local key = reqctx.key()
  if not key then
    return nil, nil
  end
  return reqctx.route_of[key], reqctx.host_of[key]
end

function _M:set_cookie(key, location_path)
  local c = self.cookie
  local samesite = c.samesite
  if samesite == "None" and c.conditional_samesite_none
      and not cookie.same_site_none_compatible(ngx.var.http_user_agent) then
    samesite = nil
  end
  local secure = c.secure
  if secure == nil then
    secure = ngx.var.https == "on"
  end
  local path = c.path
  if type(path) ~= "string" or path == "" then
    path = location_path
  end
  local expires = tonumber(c.expires)
  local max_age = tonumber(c.maxage)
  cookie.set(self.cookie_name, key .. SEPARATOR .. self.backend_key, {
    path = path,
    domain = c.domain,
    expires = expires and (ngx.time() + expires) or nil,
    max_age = max_age,
    secure = secure and true or false,
    httponly = true,
    samesite = samesite,
  })
end

function _M:balance(try)
  local peers = self.peers
  if #peers == 0 then
    return nil
  end
  local key, backend_key = self:parse()
  local i
  if key and (backend_key == nil or backend_key == self.backend_key) then
    i = self:find(key)
  end
  local retry = try ~= nil and try > 1
  if i and not (retry and self.change_on_failure) then
    local peer = peers[i]
    return peer.address, peer.port
  end
  local tried = retry and util.tried_peers(ngx.var.upstream_addr) or {}
  i, key = self:pick(tried)
  if not i then
    i, key = self:pick({})
  end
  -- the route's (the router sets $location_path only where something
  -- else reads it), else the classic location's
  local route, host = request_route()
  local location_path = route and route.location_path or ngx.var.location_path
  if self:should_set_cookie(location_path, host) then
    self:set_cookie(key, location_path)
  end
  local peer = peers[i]
  return peer.address, peer.port
end

return _M
