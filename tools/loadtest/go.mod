module github.com/ragbot/ragbot/tools/loadtest

go 1.26.8

require github.com/ragbot/ragbot v0.0.0

require github.com/gorilla/websocket v1.5.3 // indirect

replace github.com/ragbot/ragbot => ../..
