-- The layers call only downward: the core includes nothing of the bindings, the app, Lua or
-- SDL; the bindings nothing of the app or SDL; and the window's files call only the files below
-- them: window.c, then window_keys.c, window_draw.c, window_input.c, window_sketch.c, window_time.c, window_sides.c.
--   lua5.4 tests/layers.lua [ROOT]
local house = dofile((arg[0]:match("^(.*)/") or ".") .. "/house.lua")
local fail, read, files = house.fail, house.read, house.files

-- includes: a layer's files include no header of a layer above it, nor the libraries it stands apart from
local above = {
  ["src/core"] = { dirs = { "src/lua", "src/app" }, libraries = { "^SDL", "^lua", "^lauxlib", "^lualib" } },
  ["src/lua"] = { dirs = { "src/app" }, libraries = { "^SDL" } },
}
for dir, rule in pairs(above) do
  for _, name in ipairs(files(dir, "%.[ch]p?p?$")) do
    for header in read(dir .. "/" .. name):gmatch('#%s*include%s*[<"]([^>"]+)[>"]') do
      for _, d in ipairs(rule.dirs) do
        if read(d .. "/" .. header) then fail(dir .. "/" .. name .. " includes " .. d .. "/" .. header) end
      end
      for _, lib in ipairs(rule.libraries) do
        if header:match(lib) then fail(dir .. "/" .. name .. " includes " .. header) end
      end
    end
  end
end

-- the window's files, highest first: a file may call the functions of the files after it only
local order = { "window.c", "window_keys.c", "window_draw.c", "window_input.c", "window_sketch.c", "window_time.c", "window_sides.c" }
local code, defined = {}, {}
for level, name in ipairs(order) do
  local text = (read("src/app/" .. name) or fail("src/app/" .. name .. " is missing") or ""):gsub("/%*.-%*/", ""):gsub("//[^\n]*", ""):gsub('"[^"\n]*"', '""')
  code[level] = text
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  for i, line in ipairs(lines) do
    local fn = line:match("^[%a_][%w_%s%*]-([%a_][%w_]*)%(")
    if fn and not line:match("^static") and not line:match(";%s*$") and (line:match("{%s*$") or (lines[i + 1] or ""):match("^{")) then
      defined[fn] = level
    end
  end
end
local checked = 0
for level, text in ipairs(code) do
  for fn, owner in pairs(defined) do
    if owner < level and text:match("%f[%w_]" .. fn .. "%s*%(") then
      fail("src/app/" .. order[level] .. " calls " .. fn .. " in src/app/" .. order[owner] .. ", a file above it")
    end
    checked = checked + 1
  end
end
if checked == 0 then fail("found no functions in the window's files") end
house.finish()
print("the core, the bindings and the window's files call only downward")
