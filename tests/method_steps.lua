-- Adding a method takes the steps docs/architecture.md writes: every file its "Adding a method"
-- steps name (a path in backquotes) names every method, and no other source file names them
-- all, as code names a method: SB_METHOD_XPBD, xpbd_method, "xpbd", method_xpbd.c.
--   lua5.4 tests/method_steps.lua [ROOT]
local house = dofile((arg[0]:match("^(.*)/") or ".") .. "/house.lua")
local fail, read, list = house.fail, house.read, house.list

local methods = {}
for _, path in ipairs(list("ls src/core/method_*.c")) do
  methods[#methods + 1] = path:match("method_([%w]+)%.c$")
end
if #methods < 2 then fail("found " .. #methods .. " method files in src/core") end

-- whether the text names method m as code does: SB_METHOD_XPBD, xpbd_method, "xpbd", method_xpbd.c
local function names(text, m)
  return text:find("SB_METHOD_" .. m:upper() .. "%f[^%w_]") or text:find("%f[%w_]" .. m .. "_method%f[^%w_]") or
         text:find('"' .. m .. '"', 1, true) or text:find("method_" .. m .. ".c", 1, true)
end
local function names_all(text)
  for _, m in ipairs(methods) do if not names(text, m) then return false, m end end
  return true
end

local doc = read("docs/architecture.md") or ""
local steps = doc:match("## Adding a method\n(.-)\n## ") or doc:match("## Adding a method\n(.*)$")
if not steps then fail("docs/architecture.md has no section \"Adding a method\"") end
local named = {}
for quoted in (steps or ""):gmatch("`([^`]+)`") do
  for path in quoted:gsub("lua5%.4 %S+", ""):gmatch("[%w_%./-]+") do -- (a program the step runs is no edit)
    if (path:find("/") or path:find("%.rockspec$") or path == "CMakeLists.txt") and not path:find("NAME") then
      if path:find("VERSION") then
        for _, r in ipairs(list("ls *.rockspec")) do named[r] = true end
      elseif read(path) then
        named[path] = true
      elseif not path:find("%*") then
        fail("the steps name " .. path .. ", which is not in the repository")
      end
    end
  end
end
-- the files a build or a test reads for what a method is; a step each, or none
local exempt = { ["CMakeLists.txt"] = true, ["web/build.sh"] = true } -- they take every method_*.c
for path in pairs(named) do
  local ok, missing = names_all(read(path) or "")
  if not ok and not exempt[path] then fail(path .. ", which the steps name, does not name " .. missing) end
end
local sources = list("ls include/springbox/*.h src/core/*.[ch] src/lua/*.[ch] src/lua/*.lua " ..
                     "src/app/*.[ch] web/*.js web/*.sh web/*.html CMakeLists.txt *.rockspec docs/lua-api.md")
local checked = 0
for _, path in ipairs(sources) do
  if not path:match("^src/core/method_") and names_all(read(path) or "") then
    checked = checked + 1
    if not named[path] then fail(path .. " names every method, but the steps do not say to add one there") end
  end
end
if checked == 0 then fail("no source file names every method") end
house.finish()
print(string.format("adding a method: %d files to edit, the steps name each", checked))
