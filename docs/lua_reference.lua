-- Writes docs/lua-api.md, the Lua API reference, from src/lua/springbox.meta.lua, so that the
-- reference and the editor's completions are one source. Run from the repository root:
--   lua5.4 docs/lua_reference.lua > docs/lua-api.md
-- CI runs it and fails when the page in the repository differs (docs.lua_reference_is_current).
local path = arg[1] or "src/lua/springbox.meta.lua"
local lines = {}
for line in io.lines(path) do lines[#lines + 1] = line end

local out = {}
local function put(s) out[#out + 1] = s end

put("# The Lua API")
put("")
put("Generated from `src/lua/springbox.meta.lua` by `docs/lua_reference.lua`: the same text the")
put("editor's completions show. Types are LuaLS's: `?` marks what may be left out.")

-- Each run of `---` lines followed by a declaration (`local X = {}`, `function ...`, a field
-- table such as `springbox.camera = {}`) or standing alone (a class, an alias) is one entry.
local doc = {}
local function flush_doc() local d = doc; doc = {}; return d end

local function md_escape(s) return (s:gsub("|", "\\|")) end

-- A LuaLS type at the start of s, which may hold spaces inside brackets (`table<string, number>`,
-- `fun(a: number): boolean?`, `{hertz: number}`), and what follows it.
local function split_type(s)
  local depth, i = 0, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c == "(" or c == "[" or c == "{" or c == "<" then depth = depth + 1
    elseif c == ")" or c == "]" or c == "}" or c == ">" then depth = depth - 1
    elseif c:match("%s") and depth == 0 then
      local prev = s:sub(i - 1, i - 1)
      if not (prev == ":" or prev == "," or prev == "|" or s:sub(i + 1, i + 1) == "|") then break end
    end
    i = i + 1
  end
  return s:sub(1, i - 1), (s:sub(i):gsub("^%s+", ""))
end

-- name, type and description of a field or parameter line
local function name_type_desc(rest)
  local name, after = rest:match("^(%S+)%s*(.*)$")
  if not name then return rest, "", "" end
  local typ, desc = split_type(after)
  return name, typ, desc
end

local function entry_from(d, heading)
  local text, fields, params, returns, class, alias = {}, {}, {}, {}, nil, nil
  local last -- a field, param or return a continuation line (`--- more`) belongs to
  for _, l in ipairs(d) do
    local tag, rest = l:match("^%-%-%-@(%w+)%s*(.*)$")
    if tag == "class" then class = rest:match("^(%S+)"); last = nil
    elseif tag == "alias" then alias = rest; last = nil
    elseif tag == "field" then
      local name, typ, desc = name_type_desc(rest)
      fields[#fields + 1] = { name = name, type = typ, desc = desc }; last = fields[#fields]
    elseif tag == "param" then
      local name, typ, desc = name_type_desc(rest)
      params[#params + 1] = { name = name, type = typ, desc = desc }; last = params[#params]
    elseif tag == "return" then
      local typ, desc = split_type(rest)
      returns[#returns + 1] = { type = typ, desc = desc }; last = returns[#returns]
    elseif tag ~= "meta" then -- (the file's own marker says nothing)
      local t = l:match("^%-%-%-%s?(.*)$") or ""
      if last and l:match("^%-%-%- ") and #text == 0 and (#fields > 0 or #params > 0 or #returns > 0) then
        local _, opened = last.type:gsub("[%(%[{<]", "")
        local _, closed = last.type:gsub("[%)%]}>]", "")
        if opened > closed then -- a type wrapped onto this line
          local typ, desc = split_type(last.type .. " " .. t)
          last.type, last.desc = typ, (last.desc .. " " .. desc):gsub("^%s+", "")
        else
          last.desc = (last.desc .. " " .. t):gsub("^%s+", "") -- a wrapped description
        end
      else
        text[#text + 1] = t
        last = nil
      end
    end
  end
  if alias then
    local name, def = alias:match("^(%S+)%s+(.*)$")
    put("")
    put(("**`%s`**: one of %s"):format(name, def and md_escape(def) or ""))
    return
  end
  if class then
    put("")
    put("## " .. class)
  elseif heading then
    put("")
    put("### `" .. heading .. "`")
  end
  if #text > 0 then
    put("")
    put(table.concat(text, " "))
  end
  if #params > 0 then
    put("")
    for _, p in ipairs(params) do
      put(("- `%s` (`%s`)%s"):format(p.name, md_escape(p.type), p.desc ~= "" and (": " .. p.desc) or ""))
    end
  end
  if #returns > 0 then
    put("")
    for _, r in ipairs(returns) do
      put(("Returns `%s`%s"):format(md_escape(r.type), r.desc ~= "" and (": " .. r.desc) or "."))
    end
  end
  if #fields > 0 then
    put("")
    put("| field | type | |")
    put("|---|---|---|")
    for _, f in ipairs(fields) do
      put(("| `%s` | `%s` | %s |"):format(f.name, md_escape(f.type), md_escape(f.desc)))
    end
  end
end

local header_done = false
for _, l in ipairs(lines) do
  if l:match("^%-%-%-") then
    doc[#doc + 1] = l
  else
    local fn = l:match("^function%s+([%w_%.:]+%b())")
    if fn then
      entry_from(flush_doc(), fn)
    elseif #doc > 0 then
      if not header_done and doc[1]:match("^%-%-%-@meta") then
        header_done = true
        table.remove(doc, 1)
      end
      if #doc > 0 then entry_from(flush_doc()) end
    end
  end
end
if #doc > 0 then entry_from(flush_doc()) end
io.write(table.concat(out, "\n"), "\n")
