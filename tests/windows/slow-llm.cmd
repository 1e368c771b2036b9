@echo off
rem A headless LLM CLI as npm installs one on Windows (a .cmd, found through
rem PATHEXT) that never answers: it starts a grandchild that outlives it,
rem then waits. thehook must stop the whole tree at llm.timeout_secs.
echo started> "%~dp0llm-started.txt"
start /b cmd /c "ping -n 120 127.0.0.1 > nul"
ping -n 120 127.0.0.1 > nul
echo never
