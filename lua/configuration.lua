-- configuration: the HTTP API of the status server (ingress-nginx
-- compatible), run by content_by_lua in `location /configuration`:
--
--   GET|POST /configuration/backends   backends JSON array (versioned, see store.lua)
--   PATCH    /configuration/backends   the backends changed since the last POST (delta.lua)
--   GET|POST /configuration/general    general settings JSON object
--   POST     /configuration/servers    {"servers": {host: id}, "certificates": {id: PEM}}
--   GET      /configuration/certs?hostname=H   the PEM served for H
--   GET      /configuration/checksum   md5 of the nginx.conf these workers loaded
--   GET      /configuration/nginx.conf the nginx.conf these workers loaded (409 when the file differs)
--   GET|POST /configuration/routes     per-host route entries of --routing=lua (router.lua)
--
-- A POST is validated one entry at a time (validate.lua): a bad backend,
-- host or certificate is dropped (or keeps its last accepted version),
-- named in the answer and in the error log, and the rest is applied. A
-- body unusable as a whole answers 400 with a message, a body that does
-- not fit in the shared dict 413, and either leaves the last good data in
-- place. Unknown paths answer 404, a wrong method 405. See CONTRACT.md.
--
-- init() (init_by_lua, in the master) also loads the payloads that the
-- controller left under the prefix (preload/) into the shared dicts that
-- are empty, through the same checks as a POST: a master started after a
-- crash, or a reload that resized a dict, serves them from the first
-- request.
local cjson = require("cjson.safe")
local store = require("store")
local delta = require("delta")
local validate = require("validate")
local general = require("general")
local certificate = require("certificate")
local util = require("util")

local ngx = ngx
local io_open = io.open
local ipairs = ipairs
local pairs = pairs
local type = type
local tostring = tostring
local tonumber = tonumber
local string_find = string.find
local string_sub = string.sub
local string_lower = string.lower
local string_format = string.format
local string_byte = string.byte
local table_sort = table.sort
local table_concat = table.concat

local TEXT = "text/plain; charset=utf-8"
local JSON = "application/json"

local BACKENDS = "backends"
-- The backends changed since the whole array (delta.lua), which the
-- workers follow: every whole array publishes an empty one.
local DELTA = delta.NAME
-- The md5 of the whole array applied last, which a PATCH names as its base.
local BASE_SUM = "backends_base_sum"
-- Held while the backends, their delta and BASE_SUM change together.
local APPLY_LOCK = "backends_apply"
local HTTP_TOO_LARGE = 413 -- no ngx.HTTP_REQUEST_ENTITY_TOO_LARGE in lua-nginx-module 0.10.23

-- The payload files of a start, relative to the prefix (pkg/nginx.Preload
-- writes them).
local PRELOAD_BACKENDS = "preload/backends.json"
local PRELOAD_SERVERS = "preload/servers.json"
local PRELOAD_ROUTES = "preload/routes.json"

-- GENERATION (a number in configuration_data) moves after every change
-- of the backends, the routes and the general settings, once the change is
-- stored: a worker that finds it where it was at its last look knows that
-- nothing it serves from changed meanwhile (router.lua, balancer.lua). One
-- shared-dict read per request, instead of one per thing it checks.
local GENERATION = "generation"

local _M = {}

-- generation returns the current GENERATION, nil when there is none (no
-- configuration_data): then nothing can be known unchanged.
function _M.generation()
  local dict = ngx.shared.configuration_data
  return dict and dict:get(GENERATION)
end

-- bump moves GENERATION on. It exists from init() on, so that the
-- increment never needs memory of a full dict.
local function bump()
  local dict = ngx.shared.configuration_data
  if not dict then
    return
  end
  local _, err = dict:incr(GENERATION, 1)
  if err == "not found" then
    _, err = dict:incr(GENERATION, 1, 0)
  end
  if err then
    ngx.log(ngx.ERR, "configuration: cannot move the generation on: ", err)
  end
end

-- checksum is computed once by init() in the master (init_by_lua) and
-- inherited by the workers it forks, so it always names the config that the
-- worker answering the request was started with; a reload makes new workers
-- with the new value while the old ones drain.
local checksum = ""

local read_file = util.read_file
local prefix_path = util.prefix_path

-- backends_data returns the backends JSON that serves and its version (see
-- store.current), for balancer.lua.
function _M.backends_data()
  return store.current(ngx.shared.configuration_data, BACKENDS)
end

-- backends_delta_data returns the stored delta of the backends
-- (delta.lua) and its version (see store.current). The workers follow its
-- version: a whole array publishes an empty delta after itself.
function _M.backends_delta_data()
  return store.current(ngx.shared.configuration_data, DELTA)
end

-- backends_delta_version returns the version of the delta that serves: it
-- moves with every change of the backends.
function _M.backends_delta_version()
  return store.version(ngx.shared.configuration_data, DELTA)
end

local function respond(status, body, content_type)
  ngx.status = status
  ngx.header["Content-Type"] = content_type or TEXT
  if body and body ~= "" then
    ngx.print(body)
  end
end

-- A result is what applying a payload came to, in a request (a POST) or in
-- init_by_lua (a preload): status, a message for an error, and the entries
-- dropped from a payload that was applied.
local function result(status, message, dropped)
  return { status = status, message = message, dropped = dropped }
end

local function bad_request(msg)
  return result(ngx.HTTP_BAD_REQUEST, msg)
end

local function too_large(what, size, dict)
  return result(HTTP_TOO_LARGE, what .. ": " .. tostring(size)
    .. " bytes do not fit in the shared dict (capacity " .. tostring(dict:capacity())
    .. " bytes, with the data it holds)")
end

-- DROPPED_KEYS is the order of the keys of a dropped entry in an answer:
-- cjson writes a table's keys in its hash order, which differs between
-- workers, and an answer is the same bytes whichever worker gives it.
local DROPPED_KEYS = { "kind", "name", "index", "reason", "kept" }

-- encode_dropped returns {"dropped": [...]} with the keys of each entry in
-- DROPPED_KEYS order.
local function encode_dropped(dropped)
  local entries = {}
  for i, d in ipairs(dropped) do
    local fields = {}
    for _, k in ipairs(DROPPED_KEYS) do
      if d[k] ~= nil then
        fields[#fields + 1] = cjson.encode(k) .. ":" .. cjson.encode(d[k])
      end
    end
    entries[i] = "{" .. table_concat(fields, ",") .. "}"
  end
  return '{"dropped":[' .. table_concat(entries, ",") .. "]}"
end

-- answer sends a result: the message as text for an error; for a success,
-- no body (ingress-nginx's answer) or, when entries were dropped, the JSON
-- object {"dropped": [{kind, name, reason, kept[, index]}, …]}.
local function answer(r)
  if r.remembered then
    -- the same payload as the last one applied: nothing was decoded
    ngx.header["X-Kubectl-Ingress-Applied"] = "remembered"
  end
  if r.status >= 300 then
    return respond(r.status, (r.message or "") .. "\n")
  end
  if r.dropped and #r.dropped > 0 then
    return respond(r.status, encode_dropped(r.dropped), JSON)
  end
  return respond(r.status)
end

-- MAX_LOGGED_DROPS bounds the log lines of one payload's dropped entries.
local MAX_LOGGED_DROPS = 20

-- log_dropped writes one warning per dropped entry to the error log (at
-- most MAX_LOGGED_DROPS, then their count).
local function log_dropped(what, dropped)
  if not dropped then
    return
  end
  for i, d in ipairs(dropped) do
    if i > MAX_LOGGED_DROPS then
      ngx.log(ngx.WARN, "configuration: ", what, ": dropped ", #dropped - MAX_LOGGED_DROPS, " more entries")
      return
    end
    ngx.log(ngx.WARN, "configuration: ", what, ": dropped ", d.kind, " ", d.name, ": ", d.reason,
      d.kept and " (its last accepted version stays)" or "")
  end
end

-- read_body returns the request body, also when nginx buffered it to a
-- file; too_big is true when it is larger than limit bytes.
local function read_body(limit)
  local length = tonumber(ngx.var.content_length)
  if length and length > limit then
    return nil, "larger than the shared dict", true, length
  end
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  if not body then
    local path = ngx.req.get_body_file()
    if path then
      local f, err = io_open(path, "rb")
      if not f then
        return nil, "cannot read the buffered request body: " .. tostring(err)
      end
      body = f:read("*a")
      f:close()
    end
  end
  if not body or body == "" then
    return nil, "empty request body"
  end
  if #body > limit then
    return nil, "larger than the shared dict", true, #body
  end
  return body
end

-- declared_md5 returns the md5 (hex) of the body that the request's
-- Content-MD5 header declares (RFC 1864: the base64 of the binary md5),
-- nil without the header, or nil and an error for a malformed one.
local function declared_md5()
  local v = ngx.var.http_content_md5
  if not v or v == "" then
    return nil
  end
  local bin = ngx.decode_base64(v)
  if not bin or #bin ~= 16 then
    return nil, "the Content-MD5 header is not the base64 of an md5 (16 bytes)"
  end
  return (bin:gsub(".", function(c) return string_format("%02x", string_byte(c)) end))
end

-- read_payload returns the body of a payload request and its md5 when
-- the request declared one (Content-MD5, checked), or nil and the result
-- to answer: an error, or the remembered result of the payload applied
-- last when the declared md5 is its md5 (recall, see remembered). Then
-- the body is discarded unread: the controller posts, right after a start,
-- the payloads the master just preloaded (at 100,000 Ingresses 144 MB),
-- which the worker would otherwise buffer to a file, read into one string
-- and hash, and hold as garbage until its next collection.
local function read_payload(what, dict, recall)
  local declared, derr = declared_md5()
  if derr then
    return nil, bad_request(what .. ": " .. derr)
  end
  if declared and recall then
    local r = recall(declared)
    if r then
      ngx.req.discard_body()
      return nil, r
    end
  end
  local body, err, big, size = read_body(dict:capacity())
  if big then
    return nil, too_large(what, size, dict)
  end
  if not body then
    return nil, bad_request(what .. ": " .. err)
  end
  if declared and ngx.md5(body) ~= declared then
    return nil, bad_request(what .. ": the body's md5 is not the one its Content-MD5 header declares")
  end
  return body, declared
end

-- BIG_PAYLOAD is the size of a payload after which the worker that
-- applied it collects its garbage at once (collect_soon): the body and
-- what was decoded of it are garbage then, and a worker that serves
-- nothing more would keep them (about 280 MB after the payloads of
-- 100,000 Ingresses, before the remembered answer skipped their reading).
local BIG_PAYLOAD = 4 * 1024 * 1024

local function collect(premature)
  if not premature then
    collectgarbage("collect")
  end
end

-- collect_soon runs a full garbage collection once the request ended.
local function collect_soon()
  local ok, err = ngx.timer.at(0, collect)
  if not ok then
    ngx.log(ngx.WARN, "configuration: cannot schedule a garbage collection: ", err)
  end
end

-- get_backends answers the whole array that serves: the base with its
-- delta laid on it (delta.merge, a scan of the base) when there is one.
local function get_backends()
  local raw, version = _M.backends_data()
  if not raw and version then
    -- a POST that did not fit beside the current backends is replacing
    -- them in place right now
    return respond(ngx.HTTP_SERVICE_UNAVAILABLE, "backends: being replaced, ask again\n")
  end
  if not raw then
    return respond(ngx.HTTP_OK, "[]", JSON)
  end
  local stored = _M.backends_delta_data()
  local base, deleted, array
  if stored then
    base, deleted, array = delta.split(stored)
  end
  if base ~= version or delta.is_empty(deleted, array) then
    -- no delta, or one of an older base that a whole array is replacing
    return respond(ngx.HTTP_OK, raw, JSON)
  end
  local merged, err = delta.merge(raw, deleted, array)
  if not merged then
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "backends: " .. tostring(err) .. "\n")
  end
  return respond(ngx.HTTP_OK, merged, JSON)
end

-- publish stores text as the current value of name (store.lua); the
-- result holds the new version.
local function publish(dict, name, text, dropped)
  local version, perr = store.publish(dict, name, text)
  if not version then
    if perr == store.ERR_TOO_LARGE then
      return too_large(name, #text, dict)
    end
    return result(ngx.HTTP_SERVICE_UNAVAILABLE, name .. ": cannot store: " .. tostring(perr))
  end
  bump()
  local r = result(ngx.HTTP_CREATED, nil, dropped)
  r.version = version
  return r
end

-- previous_delta returns what the stored delta on base_version sets (name
-- -> its text) and deletes (a set); empty tables when there is none.
local function previous_delta(base_version)
  local stored = _M.backends_delta_data()
  local base, deleted, array
  if stored then
    base, deleted, array = delta.split(stored)
  end
  if base ~= base_version then
    return {}, {}
  end
  local set, gone = delta.decode(deleted, array)
  if not set then
    return {}, {}
  end
  return delta.texts_by_name(array), gone
end

-- name_set returns the set of the names of a list (false: no name).
local function name_set(names)
  local set = {}
  for _, name in ipairs(names) do
    if name then
      set[name] = true
    end
  end
  return set
end

-- base_names returns the set of the base's backend names (a scan of the
-- whole array: only for a PATCH with bad entries that the previous delta
-- does not name).
local function base_names(dict)
  local raw = store.current(dict, BACKENDS)
  local _, _, names = util.array_names(raw or "[]")
  return name_set(names or {})
end

-- array_with returns the JSON array of elements (their texts) where
-- replace[i] is true to leave element i out, or the text to put in its
-- place.
local function array_with(elements, replace)
  local parts = {}
  for i = 1, #elements do
    local verdict = replace[i]
    if not verdict then
      parts[#parts + 1] = elements[i]
    elseif verdict ~= true then
      parts[#parts + 1] = verdict
    end
  end
  return "[" .. table_concat(parts, ",") .. "]"
end

-- accepted_backends returns the text to store for a backends payload
-- with bad entries, and the list of dropped entries to report. Each good
-- entry is copied byte for byte from body; a bad entry whose name the
-- current backends hold keeps that version ("kept"); other bad entries are
-- left out. elements are the texts of body's elements.
local function accepted_backends(dict, elements, bad)
  local previous -- name -> element text of the current backends
  for _, b in ipairs(bad) do
    if b.name then
      local raw = store.current(dict, BACKENDS)
      previous = raw and delta.texts_by_name(raw) or {}
      -- what serves is the base with its delta
      local texts, gone = previous_delta(store.version(dict, BACKENDS))
      for name, text in pairs(texts) do
        previous[name] = text
      end
      for name in pairs(gone) do
        previous[name] = nil
      end
      break
    end
  end
  local is_bad = {}
  local dropped = {}
  for _, b in ipairs(bad) do
    local kept = b.name ~= nil and not b.duplicate and previous[b.name] ~= nil
    is_bad[b.index] = kept and previous[b.name] or true
    dropped[#dropped + 1] = { kind = "backend", name = b.name or "", index = b.index - 1, reason = b.reason, kept = kept }
  end
  return array_with(elements, is_bad), dropped
end

-- A payload identical to the last one applied to its dict changes
-- nothing, so its result is remembered (APPLIED .. name: the md5 of the
-- body, then the result as JSON) and answered again without decoding the
-- payload. The controller posts, right after nginx started, the payloads
-- the master preloaded a moment before (at 100,000 Ingresses 57 MB of
-- backends and 87 MB of routes, which cost the Lua side seconds of
-- decoding and validation each). The key is deleted before every apply
-- and set only after a success, so a failed or partial apply is never
-- taken for the last one; a dict that a reload resized (emptied) loses it
-- with the rest (and init() drops it where an endpoint spans two dicts).
local APPLIED = "applied:"

local function remembered(dict_of, name, apply, again)
  local key = APPLIED .. name
  -- recall answers the remembered result when sum is the md5 of the
  -- payload applied last, else nil
  local function recall(sum)
    local last = dict_of():get(key)
    if last and string_sub(last, 1, 32) == sum then
      local r = cjson.decode(string_sub(last, 33))
      if type(r) == "table" and type(r.status) == "number" then
        if type(r.dropped) ~= "table" then
          r.dropped = nil
        end
        r.remembered = true
        -- again (the backends') brings back what a later change laid
        -- over the payload
        return again and again(sum) or r
      end
    end
    return nil
  end
  -- the apply: sum, when given, is the md5 of body (checked by the caller)
  return function(body, sum)
    local dict = dict_of()
    sum = sum or ngx.md5(body)
    local r = recall(sum)
    if r then
      return r
    end
    dict:delete(key)
    r = apply(body, sum)
    if r.status < 300 then
      -- safe_set: never evict an entry to remember a result
      dict:safe_set(key, sum .. cjson.encode({ status = r.status, dropped = r.dropped }))
    end
    return r
  end, recall
end

-- with_apply_lock runs f(dict) holding APPLY_LOCK and returns its result.
local function with_apply_lock(dict, f)
  local ok, err = store.hold(dict, APPLY_LOCK)
  if not ok then
    return result(ngx.HTTP_SERVICE_UNAVAILABLE, BACKENDS .. ": " .. tostring(err))
  end
  local r = f(dict)
  store.release(dict, APPLY_LOCK)
  return r
end

-- publish_base publishes text as the whole backends array, then an empty
-- delta on it (the workers follow the delta), then sum as the base that
-- a PATCH names.
local function publish_base(dict, text, dropped, sum)
  return with_apply_lock(dict, function()
    -- the old base's sum goes first: a PATCH that names it must not be
    -- laid on the new array when a step below fails
    dict:delete(BASE_SUM)
    local r = publish(dict, BACKENDS, text, dropped)
    if r.status >= 300 then
      return r
    end
    local d = publish(dict, DELTA, delta.empty(r.version))
    if d.status >= 300 then
      return d
    end
    if sum then
      local ok, err = dict:safe_set(BASE_SUM, sum)
      if not ok then
        return result(ngx.HTTP_SERVICE_UNAVAILABLE, BACKENDS .. ": cannot store the base's sum: " .. tostring(err))
      end
    end
    return r
  end)
end

-- apply_backends validates and publishes a backends payload.
local function apply_backends_now(body, sum)
  local dict = ngx.shared.configuration_data
  local names, bad = validate.backends(body)
  if not names then
    return bad_request(bad)
  end
  if #bad == 0 then
    return publish_base(dict, body, nil, sum)
  end
  local elements = util.array_elements(body)
  if not elements or #elements ~= #names then
    return result(ngx.HTTP_INTERNAL_SERVER_ERROR, "backends: cannot split the payload into its entries")
  end
  local text, dropped = accepted_backends(dict, elements, bad)
  return publish_base(dict, text, dropped, sum)
end

-- base_again answers a whole array that is the one applied last: when a
-- delta was laid on it since, an empty delta brings the array back. nil
-- when there is nothing to do (or the base is not that array any more:
-- then the remembered result stands, as before deltas).
local function base_again(sum)
  local dict = ngx.shared.configuration_data
  return with_apply_lock(dict, function()
    local version = store.version(dict, BACKENDS)
    local stored = _M.backends_delta_data()
    local base, deleted, array
    if stored then
      base, deleted, array = delta.split(stored)
    end
    if not version or dict:get(BASE_SUM) ~= sum or (base == version and delta.is_empty(deleted, array)) then
      return nil
    end
    local d = publish(dict, DELTA, delta.empty(version))
    if d.status >= 300 then
      return d
    end
    return nil
  end)
end

local function configuration_dict()
  return ngx.shared.configuration_data
end

local apply_backends, recall_backends = remembered(configuration_dict, BACKENDS, apply_backends_now, base_again)

-- payload_handler answers a request whose body apply takes (a POST of
-- backends or routes, a PATCH of backends), at most the size of the dict
-- dict_of returns (nil: this nginx.conf has no such dict, 404).
local function payload_handler(what, dict_of, apply, recall)
  return function()
    local dict = dict_of()
    if not dict then
      return respond(ngx.HTTP_NOT_FOUND, what .. ": this nginx.conf does not route in Lua\n")
    end
    local body, r = read_payload(what, dict, recall)
    if body then
      r = apply(body, r)
      if #body >= BIG_PAYLOAD then
        collect_soon()
      end
    end
    log_dropped(what, r.dropped)
    return answer(r)
  end
end

local post_backends = payload_handler(BACKENDS, configuration_dict, apply_backends, recall_backends)

-- accepted_delta returns the array text and deleted names to store for a
-- PATCH with bad entries, and the dropped entries to report. A bad
-- entry's name keeps what served it before: the previous delta's version,
-- its deletion, or the base's version ("kept" tells whether one serves).
local function accepted_delta(dict, base_version, deleted, elements, bad)
  local texts, gone = previous_delta(base_version)
  local names -- the base's, when needed
  local replace, dropped = {}, {}
  for _, b in ipairs(bad) do
    local kept = false
    replace[b.index] = true
    if b.name and not b.duplicate then
      if texts[b.name] then
        replace[b.index], kept = texts[b.name], true
      elseif gone[b.name] then
        deleted[#deleted + 1] = b.name
      else
        names = names or base_names(dict)
        kept = names[b.name] ~= nil
      end
    end
    dropped[#dropped + 1] = { kind = "backend", name = b.name or "", index = b.index - 1, reason = b.reason, kept = kept }
  end
  return array_with(elements, replace), deleted, dropped
end

-- apply_delta applies a PATCH body (delta.lua) on the whole array it names
-- as its base: 409 when that is not the one applied last (nginx started
-- again, another client posted one), so that the client posts it whole.
local function apply_delta(body)
  local dict = ngx.shared.configuration_data
  local base_sum, deleted, array = delta.parse(body)
  if not base_sum then
    return bad_request(deleted)
  end
  local names, bad = validate.backends(array)
  if not names then
    return bad_request(bad)
  end
  local setting = name_set(names)
  for i = 1, #deleted do
    if setting[deleted[i]] then
      return bad_request("backends: " .. deleted[i] .. " is both deleted and set")
    end
  end
  local elements
  if #bad > 0 then
    elements = util.array_elements(array)
    if not elements or #elements ~= #names then
      return result(ngx.HTTP_INTERNAL_SERVER_ERROR, "backends: cannot split the payload into its entries")
    end
  end
  return with_apply_lock(dict, function()
    local current = dict:get(BASE_SUM)
    local version = store.version(dict, BACKENDS)
    if current ~= base_sum or not version then
      return result(ngx.HTTP_CONFLICT, "backends: the base " .. base_sum
        .. " is not the whole array applied last (" .. (current or "none")
        .. "): POST the whole array")
    end
    local text, dropped = array, nil
    if elements then
      text, deleted, dropped = accepted_delta(dict, version, deleted, elements, bad)
    end
    return publish(dict, DELTA, delta.encode(version, deleted, text), dropped)
  end)
end

local patch_backends = payload_handler(BACKENDS, configuration_dict, apply_delta)

local function get_general()
  return respond(ngx.HTTP_OK, general.raw(), JSON)
end

local function post_general()
  local dict = ngx.shared.configuration_data
  local body, err, big, size = read_body(dict:capacity())
  if big then
    return answer(too_large(general.NAME, size, dict))
  end
  if not body then
    return answer(bad_request(general.NAME .. ": " .. err))
  end
  local _, verr = validate.general(body)
  if verr then
    return answer(bad_request(verr))
  end
  return answer(publish(dict, general.NAME, body))
end

-- store_all stores every entry of map in dict with safe_set (which never
-- evicts other entries to make room). On failure it puts back what it
-- changed and returns nil and the error.
local function store_all(dict, map)
  local undo = {}
  for k, v in pairs(map) do
    local old = dict:get(k)
    if old ~= v then
      local ok, err = dict:safe_set(k, v)
      if not ok then
        for uk, uv in pairs(undo) do
          if uv == false then
            dict:delete(uk)
          elseif not dict:safe_set(uk, uv) then
            ngx.log(ngx.ERR, "configuration: cannot put back ", uk, " after a failed update")
          end
        end
        return nil, err
      end
      undo[k] = old or false
    end
  end
  return undo
end

-- delete_absent deletes the keys of dict that map does not hold.
local function delete_absent(dict, map)
  for _, k in ipairs(dict:get_keys(0)) do
    if map[k] == nil then
      dict:delete(k)
    end
  end
end

-- pem_error tells why pem (the chain, then the key) cannot be served, nil
-- when it looks servable: it must hold a certificate block and a private
-- key block. Parsing them (ngx.ssl) would cost about 1 ms per certificate
-- with OpenSSL 3, 10 s for a first push of 10,000: a PEM whose blocks do
-- not parse is found at the handshake instead (certificate.lua logs it and
-- serves the default certificate).
local function pem_error(pem)
  if not string_find(pem, "-----BEGIN CERTIFICATE-----", 1, true) then
    return "no certificate (-----BEGIN CERTIFICATE-----) in the PEM"
  end
  if not string_find(pem, "-----BEGIN [%u ]*PRIVATE KEY-----") then
    return "no private key (-----BEGIN … PRIVATE KEY-----) in the PEM"
  end
  return nil
end

-- accepted_servers checks each certificate that changed (pem_error) and
-- each host's certificate, and returns the maps to store and
-- the dropped entries. A dropped certificate keeps its stored version when
-- there is one ("kept"); a host whose certificate is neither accepted nor
-- kept is dropped too, so that the wildcard or catch-all entry serves it.
local function accepted_servers(data, index, hosts, certs, bad)
  local dropped = {}
  local ids = {}
  for id in pairs(certs) do
    ids[#ids + 1] = id
  end
  table_sort(ids)
  for _, id in ipairs(ids) do
    local pem = certs[id]
    if data:get(id) ~= pem then
      local err = pem_error(pem)
      if err then
        certs[id] = nil
        bad[#bad + 1] = { kind = "certificate", name = id, reason = "certificates[" .. id .. "]: " .. err }
      end
    end
  end
  -- certificates first: a host dropped with a bad value keeps its last
  -- mapping only when that certificate stays
  table_sort(bad, function(a, b)
    if a.kind ~= b.kind then
      return a.kind == "certificate"
    end
    return a.name < b.name
  end)
  for _, b in ipairs(bad) do
    local kept = false
    if b.kind == "certificate" then
      local old = data:get(b.name)
      if old then
        certs[b.name] = old
        kept = true
      end
    else
      local host = string_lower(b.name)
      local old = index:get(host)
      if old and hosts[host] == nil and certs[old] ~= nil then
        hosts[host] = old
        kept = true
      end
    end
    dropped[#dropped + 1] = { kind = b.kind, name = b.name, reason = b.reason, kept = kept }
  end
  local orphans = {}
  for host, id in pairs(hosts) do
    if certs[id] == nil then
      orphans[#orphans + 1] = host
    end
  end
  table_sort(orphans)
  for _, host in ipairs(orphans) do
    dropped[#dropped + 1] = { kind = "server", name = host, kept = false,
      reason = "servers[" .. host .. "]: certificate " .. hosts[host] .. " is not in the payload or was dropped" }
    hosts[host] = nil
  end
  return hosts, certs, dropped
end

-- apply_servers validates and stores a servers payload.
local function apply_servers_now(body)
  local data = ngx.shared.certificate_data
  local index = ngx.shared.certificate_servers
  local hosts, certs, bad = validate.servers(body)
  if not hosts then
    return bad_request(bad)
  end
  local dropped
  hosts, certs, dropped = accepted_servers(data, index, hosts, certs, bad)
  -- New PEMs first, then the host map, then the stale entries: a handshake
  -- meanwhile sees the old or the new certificate, never none.
  local undo, serr = store_all(data, certs)
  if not undo then
    if serr == store.ERR_TOO_LARGE then
      return too_large("servers: certificates", #body, data)
    end
    return result(ngx.HTTP_INTERNAL_SERVER_ERROR, "servers: cannot store certificates: " .. tostring(serr))
  end
  local ok, herr = store_all(index, hosts)
  if not ok then
    for k, v in pairs(undo) do
      if v == false then
        data:delete(k)
      else
        data:safe_set(k, v)
      end
    end
    if herr == store.ERR_TOO_LARGE then
      return too_large("servers: host map", #body, index)
    end
    return result(ngx.HTTP_INTERNAL_SERVER_ERROR, "servers: cannot store the host map: " .. tostring(herr))
  end
  delete_absent(index, hosts)
  delete_absent(data, certs)
  return result(ngx.HTTP_CREATED, nil, dropped)
end

-- (remembered in certificate_data, whose keys are Secret ids: a SNI
-- lookup of the host index never meets it)
local apply_servers, recall_servers = remembered(function() return ngx.shared.certificate_data end, "servers", apply_servers_now)

local function post_servers()
  local data = ngx.shared.certificate_data
  local body, r = read_payload("servers", data, recall_servers)
  if body then
    r = apply_servers(body, r)
    if #body >= BIG_PAYLOAD then
      collect_soon()
    end
  end
  log_dropped("servers", r.dropped)
  return answer(r)
end

-- Routes (--routing=lua): one entry per host in the shared dict
-- routes_data, "h:<host>" the entry's JSON and "v:<host>" its version
-- (and "t:<host>" the client certificate settings, "s:<host>" the ciphers,
-- that the TLS handshake reads: client_auth.lua, ssl_ciphers.lua)
-- (router.lua reads the version on every request and the JSON only when
-- it moved). A host's JSON is stored before its version, and its version
-- deleted before its JSON, so that a worker never finds a version without
-- its entry. Each entry is applied or refused on its own.
local ROUTES = "routes"

local function routes_dict()
  return ngx.shared.routes_data
end

-- set_or_delete stores value under key (never evicting another entry), or
-- deletes key when value is nil.
local function set_or_delete(dict, key, value)
  if value == nil then
    dict:delete(key)
    return true
  end
  return dict:safe_set(key, value)
end

-- apply_routes validates and applies a routes payload: deletes first, then
-- the new and changed hosts.
local function apply_routes_now(body)
  local dict = routes_dict()
  local good, gone, bad, err = validate.routes(body)
  if not good then
    return bad_request(err)
  end
  for _, host in ipairs(gone) do
    dict:delete("v:" .. host)
    dict:delete("h:" .. host)
    dict:delete("t:" .. host)
    dict:delete("s:" .. host)
  end
  local dropped = {}
  local function drop(b)
    local kept = b.name ~= nil and not b.duplicate and dict:get("v:" .. b.name) ~= nil
    dropped[#dropped + 1] = { kind = "route", name = b.name or "", index = b.index - 1, reason = b.reason, kept = kept }
  end
  for _, b in ipairs(bad) do
    drop(b)
  end
  local gc = util.tight_gc()
  for _, g in ipairs(good) do
    -- the entry's own bytes: validate.routes decoded and checked them
    local ok, err = dict:safe_set("h:" .. g.host, string_sub(body, g.first, g.last))
    if ok then
      -- the handshake's client certificate settings (client_auth.lua)
      ok, err = set_or_delete(dict, "t:" .. g.host, g.client_auth)
    end
    if ok then
      -- and its ciphers (ssl_ciphers.lua)
      ok, err = set_or_delete(dict, "s:" .. g.host, g.tls)
    end
    if ok then
      ok, err = dict:safe_set("v:" .. g.host, g.version)
    end
    if not ok then
      -- the old JSON may be gone: the host is not served rather than
      -- served by an entry that does not match its version
      dict:delete("v:" .. g.host)
      dict:delete("h:" .. g.host)
      dict:delete("t:" .. g.host)
      dict:delete("s:" .. g.host)
      drop({ index = g.index, name = g.host, reason = "hosts[" .. (g.index - 1) .. "]: cannot store: " .. tostring(err) })
    end
  end
  util.restore_gc(gc)
  bump()
  table_sort(dropped, function(a, b) return a.index < b.index end)
  return result(ngx.HTTP_CREATED, nil, dropped)
end

local apply_routes, recall_routes = remembered(routes_dict, ROUTES, apply_routes_now)

local post_routes = payload_handler(ROUTES, routes_dict, apply_routes, recall_routes)

-- get_routes answers the entry of ?host=H, or without it
-- {"hosts": {host: version}}.
local function get_routes()
  local dict = routes_dict()
  if not dict then
    return respond(ngx.HTTP_NOT_FOUND, "routes: this nginx.conf does not route in Lua\n")
  end
  local host = ngx.var.arg_host
  if host and host ~= "" then
    host = ngx.unescape_uri(host)
    local text = dict:get("v:" .. host) and dict:get("h:" .. host)
    if not text then
      return respond(ngx.HTTP_NOT_FOUND, "no routes for " .. host .. "\n")
    end
    return respond(ngx.HTTP_OK, text, JSON)
  end
  local versions = {}
  for _, k in ipairs(dict:get_keys(0)) do
    if k:sub(1, 2) == "v:" then
      versions[k:sub(3)] = dict:get(k)
    end
  end
  local text = next(versions) and cjson.encode({ hosts = versions }) or '{"hosts":{}}'
  return respond(ngx.HTTP_OK, text, JSON)
end

-- preload applies the payload file name (relative to the prefix) with
-- apply when it exists, and logs the outcome.
local function preload(name, what, apply)
  local body = read_file(prefix_path(name))
  if not body or body == "" then
    return
  end
  local r = apply(body)
  if r.status >= 300 then
    ngx.log(ngx.ERR, "configuration: preload ", name, ": ", r.message)
    return
  end
  log_dropped(what, r.dropped)
  ngx.log(ngx.NOTICE, "configuration: preloaded ", what, " from ", name, " (", #body, " bytes)")
end

-- init runs in init_by_lua, in the master, at every start and reload: it
-- computes the md5 hex of $prefix/nginx.conf (the empty string when that
-- file cannot be read), then loads the preload payloads into the shared
-- dicts that hold none yet: at a start, and at a reload that changed a
-- dict's size (nginx then gives the new workers a new, empty zone). A dict
-- that survived the reload keeps what the controller pushed last: the old
-- workers, draining, share it.
function _M.init()
  local data = read_file(prefix_path("nginx.conf"))
  checksum = data and ngx.md5(data) or ""
  local preloaded = false
  local dict = ngx.shared.configuration_data
  if dict then
    local ok, err = dict:safe_add(GENERATION, 0)
    if not ok and err ~= "exists" then
      ngx.log(ngx.ERR, "configuration: cannot store the generation: ", err)
    end
  end
  if dict and store.version(dict, BACKENDS) == nil then
    preload(PRELOAD_BACKENDS, BACKENDS, apply_backends)
    preloaded = true
  end
  local certs, index = ngx.shared.certificate_data, ngx.shared.certificate_servers
  if certs and index and #index:get_keys(1) == 0 then
    -- a reload resized the host index alone: the servers remembered in
    -- certificate_data are no longer what the two dicts hold together
    certs:delete(APPLIED .. "servers")
  end
  if certs and index and #certs:get_keys(1) == 0 and #index:get_keys(1) == 0 then
    preload(PRELOAD_SERVERS, "servers", apply_servers)
    preloaded = true
  end
  local routes = ngx.shared.routes_data
  if routes and #routes:get_keys(1) == 0 then
    preload(PRELOAD_ROUTES, ROUTES, apply_routes)
    preloaded = true
  end
  if preloaded then
    -- the decoded payloads are garbage now: do not hand them to every
    -- worker this master forks
    collectgarbage("collect")
  end
end

local function get_certs()
  local hostname = ngx.var.arg_hostname
  if not hostname or hostname == "" then
    return answer(bad_request("certs: the hostname query parameter is required"))
  end
  hostname = ngx.unescape_uri(hostname)
  local pem, id = certificate.lookup(hostname)
  if not pem then
    return respond(ngx.HTTP_NOT_FOUND, "no certificate for " .. hostname .. "\n")
  end
  -- The id ("namespace/secret-name") says which Secret serves hostname.
  ngx.header["X-Certificate-Id"] = id
  return respond(ngx.HTTP_OK, pem)
end

local function get_checksum()
  return respond(ngx.HTTP_OK, checksum)
end

-- get_nginx_conf answers the nginx.conf these workers loaded: the file, as
-- long as its md5 is theirs (checksum); else a reload is under way or nginx
-- refused the file, and the answer is 409 rather than a config that does
-- not serve.
local function get_nginx_conf()
  local data = read_file(prefix_path("nginx.conf"))
  if not data then
    return respond(ngx.HTTP_INTERNAL_SERVER_ERROR, "nginx.conf: cannot be read\n")
  end
  if ngx.md5(data) ~= checksum then
    return respond(ngx.HTTP_CONFLICT, "nginx.conf: the file is not the one these workers loaded (a reload is under way, or nginx refused it); ask again\n")
  end
  ngx.header["X-Config-Checksum"] = checksum
  return respond(ngx.HTTP_OK, data)
end

local routes = {
  ["/configuration/backends"] = { GET = get_backends, POST = post_backends, PATCH = patch_backends },
  ["/configuration/general"] = { GET = get_general, POST = post_general },
  ["/configuration/servers"] = { POST = post_servers },
  ["/configuration/certs"] = { GET = get_certs },
  ["/configuration/checksum"] = { GET = get_checksum },
  ["/configuration/nginx.conf"] = { GET = get_nginx_conf },
  ["/configuration/routes"] = { GET = get_routes, POST = post_routes },
}

local function allowed(methods)
  local list = {}
  for m, _ in pairs(methods) do
    list[#list + 1] = m
  end
  table_sort(list)
  return table_concat(list, ", ")
end

-- call runs in content_by_lua of the status server's /configuration location.
function _M.call()
  local methods = routes[ngx.var.uri]
  if not methods then
    return respond(ngx.HTTP_NOT_FOUND, "not found\n")
  end
  local handler = methods[ngx.req.get_method()]
  if not handler then
    ngx.header["Allow"] = allowed(methods)
    return respond(ngx.HTTP_NOT_ALLOWED, "method not allowed\n")
  end
  return handler()
end

return _M
