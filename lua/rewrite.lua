-- rewrite: the rewrite and return lines of a route's configuration-snippet
-- (RouteSettings.rewrites, lua/CONTRACT.md), run by the router where
-- nginx's rewrite module runs them in the classic location, with its
-- rules:
--
--   - a rewrite matches its regex (PCRE, case-sensitive unless "(?i)")
--     against the URI; its replacement reads $1..$9 (the regex's
--     captures) and the request's variables (the route's own were
--     resolved by Go);
--   - the replacement's first "?" starts the new arguments, which the
--     request's follow unless the replacement ends in "?"; captures copied
--     into the arguments are escaped when the request's path held a "%"
--     or "+" (nginx's quoted_uri, plus_in_uri), those of the path are not;
--   - a replacement that starts with http://, https:// or $scheme, and
--     the flags redirect and permanent, answer with a redirect (302, 301):
--     every capture escaped as above, then the path's escapes that stand
--     for a printable character undone (NGX_UNESCAPE_REDIRECT);
--   - without a flag the next line runs on the new URI; "break" ends the
--     lines (and rewrite-target's after them), "last" too and asks for the
--     locations to be searched again, as a URI changed without "break"
--     does at the end of the location's rewrite phase;
--   - a return answers: a redirect for 301, 302, 303, 307, 308, else its
--     text as the body, or nginx's own page.
local util = require("util")

local ngx = ngx
local ngx_var = ngx.var
local ngx_log = ngx.log
local NOTICE = ngx.NOTICE
local re_match = ngx.re.match
local escape_args = util.escape_args
local type = type
local ipairs = ipairs
local tonumber = tonumber
local string_sub = string.sub
local string_byte = string.byte
local string_char = string.char
local string_find = string.find
local table_concat = table.concat

local QUESTION = 63 -- "?"
local PERCENT = 37 -- "%"

local _M = {}

-- What run() reports besides an answer.
_M.LAST = "last"       -- search the locations again
_M.BREAK = "break"     -- no more rewrite lines (rewrite-target's neither)
_M.CHANGED = "changed" -- the URI changed; the location's lines go on

-- quoted tells whether the request's path holds a "%" or "+": nginx then
-- escapes the captures it copies into arguments (r->quoted_uri,
-- r->plus_in_uri).
function _M.quoted()
  local ru = ngx_var.request_uri or ""
  local q = string_find(ru, "?", 1, true)
  if q then
    ru = string_sub(ru, 1, q - 1)
  end
  return string_find(ru, "[%%+]") ~= nil
end

local function is_redirect(tpl)
  return string_sub(tpl, 1, 7) == "http://" or string_sub(tpl, 1, 8) == "https://"
    or string_sub(tpl, 1, 7) == "$scheme"
end

-- compile_text is a text of the payload as parts (util.compile_expression,
-- with $1..$9 as captures).
local function compile_text(text)
  return util.compile_expression(text, true)
end

-- compile turns the payload's rewrites into the steps run() takes (nil
-- for none).
function _M.compile(list)
  if type(list) ~= "table" or #list == 0 then
    return nil
  end
  local steps = {}
  for i, rw in ipairs(list) do
    local ret = rw["return"]
    if type(ret) == "table" then
      steps[i] = { ret = { code = tonumber(ret.code), parts = compile_text(type(ret.text) == "string" and ret.text or "") } }
    else
      local tpl = rw.replacement
      local keep_args = string_byte(tpl, -1) ~= QUESTION
      if not keep_args then
        tpl = string_sub(tpl, 1, -2)
      end
      local step = { regex = rw.regex, flag = rw.flag or "", keep_args = keep_args }
      step.redirect = is_redirect(tpl) or step.flag == "redirect" or step.flag == "permanent"
      step.code = step.flag == "permanent" and 301 or 302
      local q = string_find(tpl, "?", 1, true)
      if q then
        step.path = compile_text(string_sub(tpl, 1, q - 1))
        step.args = compile_text(string_sub(tpl, q + 1))
      else
        step.path = compile_text(tpl)
      end
      steps[i] = step
    end
  end
  return steps
end

-- expand evaluates parts: m holds the captures (nil for none), escaped as
-- an argument when escape.
local function expand(parts, m, escape)
  local out = {}
  for i = 1, #parts do
    local p = parts[i]
    if type(p) == "string" then
      out[i] = p
    elseif p.cap then
      local v = m and m[p.cap] or ""
      if escape and v ~= "" then
        v = escape_args(v)
      end
      out[i] = v
    else
      out[i] = ngx_var[p.var] or ""
    end
  end
  return table_concat(out)
end

local function hex(c)
  if c >= 48 and c <= 57 then
    return c - 48
  end
  c = c + 32 * ((c >= 65 and c <= 70) and 1 or 0) -- lower case
  if c >= 97 and c <= 102 then
    return c - 87
  end
end

-- unescape_redirect undoes, up to the first "?" (or "%3F"), the escapes
-- that stand for a character from "&" to "~" and drops what is no escape
-- ("%" and the character after it, or "%", a digit and the character
-- after them), as nginx's ngx_unescape_uri with NGX_UNESCAPE_REDIRECT.
local function unescape_redirect(s)
  if not string_find(s, "%", 1, true) then
    return s
  end
  local out, n, i = {}, #s, 1
  while i <= n do
    local c = string_byte(s, i)
    if c == QUESTION then
      out[#out + 1] = string_sub(s, i)
      break
    end
    if c ~= PERCENT then
      out[#out + 1] = string_char(c)
      i = i + 1
    else
      local h1 = i + 1 <= n and hex(string_byte(s, i + 1))
      if not h1 then
        -- nginx drops the "%" and keeps the next character (a "?" too)
        out[#out + 1] = string_sub(s, i + 1, i + 1)
        i = i + 2
      else
        local h2 = i + 2 <= n and hex(string_byte(s, i + 2))
        if h2 then
          local v = h1 * 16 + h2
          if v == QUESTION then
            -- an escaped "?" ends the path as a "?" does
            out[#out + 1] = "?" .. string_sub(s, i + 3)
            break
          elseif v > PERCENT and v < 127 then
            out[#out + 1] = string_char(v)
          else
            out[#out + 1] = string_sub(s, i, i + 2)
          end
        end
        -- (nginx drops a "%" and a digit that an invalid character
        -- follows, and that character)
        i = i + 3
      end
    end
  end
  return table_concat(out)
end

-- rewrite runs one rewrite step on uri; it returns nil when its regex
-- does not match, "redirect" with the Location and code, or the new URI
-- set (the request's URI and arguments changed).
local function rewrite(step, uri, log)
  local m, err = re_match(uri, step.regex, "jo")
  if log then
    -- enable-rewrite-log: the notices of nginx's rewrite log
    ngx_log(NOTICE, '"', step.regex, m and '" matches "' or '" does not match "', uri, '"')
  end
  if not m then
    if err then
      ngx_log(ngx.ERR, "rewrite: regex ", step.regex, ": ", err)
    end
    return nil
  end
  local args = ngx_var.args or ""
  if step.redirect then
    local escape = _M.quoted()
    local target = expand(step.path, m, escape)
    if step.args then
      target = target .. "?" .. expand(step.args, m, escape)
    end
    target = unescape_redirect(target)
    if step.keep_args and args ~= "" then
      target = target .. (step.args and "&" or "?") .. args
    end
    if log then
      ngx_log(NOTICE, 'rewritten redirect: "', target, '"')
    end
    return "redirect", target, step.code
  end
  local path = expand(step.path, m)
  local new_args
  if step.args then
    new_args = expand(step.args, m, _M.quoted())
    if step.keep_args and args ~= "" then
      new_args = new_args .. "&" .. args
    end
  elseif not step.keep_args then
    new_args = ""
  end
  if log then
    ngx_log(NOTICE, 'rewritten data: "', path, '", args: "', new_args or args, '"')
  end
  if path == "" then
    ngx_log(ngx.ERR, "rewrite: the rewritten URI has a zero length (", step.regex, ")")
    return ngx.exit(ngx.HTTP_INTERNAL_SERVER_ERROR)
  end
  ngx.req.set_uri(path, false, true) -- binary: any byte nginx's URI may hold
  if new_args then
    ngx.req.set_uri_args(new_args)
  end
  return "uri"
end

-- run runs steps in order on the request (log: enable-rewrite-log). An
-- answer is returned as "answer" and the return line ({code, text} with
-- its text expanded), or "redirect", the Location and the code; otherwise
-- LAST, BREAK, CHANGED or nil (nothing changed).
function _M.run(steps, log)
  local changed = false
  for _, step in ipairs(steps) do
    if step.ret then
      return "answer", { code = step.ret.code, text = expand(step.ret.parts) }
    end
    local what, location, code = rewrite(step, ngx_var.uri, log)
    if what == "redirect" then
      return "redirect", location, code
    end
    if what then
      changed = true
      if step.flag == "last" then
        return _M.LAST
      end
      if step.flag == "break" then
        return _M.BREAK
      end
    end
  end
  if changed then
    return _M.CHANGED
  end
end

return _M
