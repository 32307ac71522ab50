-- What the house's checks share (layers.lua, method_steps.lua, source_map.lua): the tree they
-- read, from the ROOT their first argument names, and how they report what fails.
--   local house = dofile((arg[0]:match("^(.*)/") or ".") .. "/house.lua")
local house = { root = arg[1] or ".", failures = 0 }

--- Reports one failure on stderr; house.finish() then exits 1.
function house.fail(text)
  io.stderr:write("FAIL: ", text, "\n")
  house.failures = house.failures + 1
end

--- The text of a file of the tree, or nil when it is not there.
function house.read(path)
  local f = io.open(house.root .. "/" .. path)
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

--- The lines a shell command prints, run at the tree's root.
function house.list(command)
  local out, p = {}, io.popen('cd "' .. house.root .. '" && ' .. command .. " 2>/dev/null")
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end

--- The names in a folder of the tree that match a Lua pattern.
function house.files(dir, pattern)
  local out = {}
  for _, name in ipairs(house.list('ls "' .. dir .. '"')) do
    if name:match(pattern) then out[#out + 1] = name end
  end
  return out
end

--- Exits 1 when anything failed.
function house.finish()
  if house.failures > 0 then os.exit(1) end
end

return house
