-- luacheck configuration: scenes and Lua tests run on Lua 5.4 with no globals of their own.
std = "lua54"
max_line_length = 120
files["src/lua/springbox.meta.lua"] = { ignore = { "212", "241" } } -- stubs: unused arguments
