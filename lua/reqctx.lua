-- reqctx: the request's ngx.ctx only when something made one, and a key
-- of the request for what a phase leaves to a later one.
--
-- The first ngx.ctx of a request makes its table and registers it with
-- nginx (a reference, a cleanup at the end of the request): about as much
-- CPU as the rest of a plain route's Lua. A route that needs nothing
-- carried from one phase to the next (router.lua) makes none, and the
-- later phases ask with existing() whether there is one, which makes
-- nothing. The table is resty.core's own: existing() and ngx.ctx give
-- the same table.
local ffi = require("ffi")
local base = require("resty.core.base")
require("resty.core.ctx") -- declares ngx_http_lua_ffi_get_ctx_ref

local C = ffi.C
local get_request = base.get_request
local registry = debug.getregistry()

local in_ssl_phase = ffi.new("int[1]")
local ssl_ctx_ref = ffi.new("int[1]")

local _M = {}

-- existing returns the request's ngx.ctx, nil when no code of this
-- request has made it yet (or outside a request).
function _M.existing()
  local r = get_request()
  if not r then
    return nil
  end
  local ref = C.ngx_http_lua_ffi_get_ctx_ref(r, in_ssl_phase, ssl_ctx_ref)
  if ref < 0 then
    -- none yet (a TLS handshake's ctx becomes the request's only once
    -- ngx.ctx is read)
    return nil
  end
  local tables = registry.ngx_lua_ctx_tables
  return tables and tables[ref]
end

-- key returns the request's address as a number (nil outside a request):
-- a table key for what one phase leaves to a later one of the same
-- request, without ngx.ctx. A request's address is one no living request
-- has, but a later request may get it again: what is kept under it must
-- go in the request's last phase (log), and a later request must replace
-- it before it reads it.
function _M.key()
  local r = get_request()
  if not r then
    return nil
  end
  return tonumber(ffi.cast("uintptr_t", r))
end

-- The route of a request that the router left for the balancer under the
-- request's key() when the request has no ngx.ctx (router.lua, for a
-- balancer with wants_route: the sticky one reads it only to set its
-- cookie), and the host entry's name; router.log() empties them.
_M.route_of, _M.host_of = {}, {}

return _M
