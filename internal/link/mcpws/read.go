package mcpws

import (
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ReadMessage reads frames from l until one holds a JSON-RPC message and
// returns it: the one frame dispatch of every end of a link (package
// connect, package gateway). Control frames go to onControl (nil:
// dropped) with their "type". A frame that is neither is answered with a
// -32700 parse error (ParseErrorFrame), logged on log (nil: slog.Default())
// as a warning with attrs, and skipped; the link survives. The error is the
// link's read error.
func ReadMessage(l *Link, onControl func(typ string, frame []byte), log *slog.Logger, attrs ...any) (jsonrpc.Message, error) {
	for {
		frame, err := l.ReadFrame()
		if err != nil {
			return nil, err
		}
		if typ, ok := Control(frame); ok {
			if onControl != nil {
				onControl(typ, frame)
			}
			continue
		}
		msg, err := jsonrpc.DecodeMessage(frame)
		if err != nil {
			if log == nil {
				log = slog.Default()
			}
			log.Warn("dropping a frame that is not JSON-RPC", append(attrs, "err", err, "bytes", len(frame))...)
			_ = l.WriteFrame(ParseErrorFrame(err.Error()))
			continue
		}
		return msg, nil
	}
}
