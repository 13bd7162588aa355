package nginx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// streamName is the stream payload file under the prefix, which
// lua/stream.js reads for every new stream connection (see lua/STREAM.md).
const streamName = "stream.json"

// WriteStream replaces the stream payload atomically (a connection reads
// the old or the new file, never a part); nil removes it. Running stream
// servers use it from their next connection on: no reload. The bytes are
// written as given (pkg/luaapi.StreamPayload makes them).
func (in *Instance) WriteStream(ctx context.Context, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nginx: write %s: %w", streamName, err)
	}
	path := in.path(streamName)
	if payload == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("nginx: remove %s: %w", streamName, err)
		}
		return nil
	}
	return writeAtomic(path, payload, 0o644)
}
