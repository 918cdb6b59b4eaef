package migrate

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// blockWrites makes the source refuse writes: setUserWriteBlockMode,
// MongoDB's command for the cutover of a live migration, which Lode also
// serves. It returns once the writes in flight have ended.
func (m *Migration) blockWrites(ctx context.Context) error {
	m.out.printf("cutover: caught up; blocking writes on the source (setUserWriteBlockMode)")
	return m.retry(ctx, "block writes on the source", func() error {
		_, err := command(ctx, m.src, "admin", bson.D{{Key: "setUserWriteBlockMode", Value: 1}, {Key: "global", Value: true}})
		if err != nil && !transient(err) {
			return fmt.Errorf("the source cannot refuse writes (setUserWriteBlockMode): %w", err)
		}
		return err
	})
}

// cutover runs after the last change is applied with the source's
// writes blocked: it verifies, records the cutover in the checkpoint
// and prints what to change in the application.
func (m *Migration) cutover(ctx context.Context, cp *checkpoint) error {
	m.out.printf("cutover: every change applied (at %s); verifying", tokenString(cp.Token))
	var diffs int
	err := m.retry(ctx, "verify", func() error {
		var err error
		diffs, err = m.verify(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil
	}
	if diffs > 0 {
		return fmt.Errorf("cutover: verify found %d difference(s); the source still refuses writes: run `lode migrate --verify` again, or lift the block with db.adminCommand({setUserWriteBlockMode: 1, global: false}) on the source", diffs)
	}
	cp.Phase = phaseCutover
	if err := m.retry(ctx, "save the checkpoint", func() error { return m.saveCheckpoint(ctx, cp) }); err != nil {
		return err
	}
	m.out.printf("cutover: done at %s", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(m.cfg.Out, `
The target now holds the source's data and the source refuses writes
(UserWritesBlocked). In the application:
  1. change the connection string to the target:
       %s
     (with the target's replica set or mongos hosts, credentials and TLS
     options; keep retryWrites=true);
  2. restart it or roll it out; writes to the source fail from now on,
     so a forgotten instance shows itself at its first write;
  3. keep the source until the target has served for a while; to undo,
     lift the block on the source with
       db.adminCommand({setUserWriteBlockMode: 1, global: false})
     and point the application back.
The target's %s database holds the migration's checkpoint: drop it
when done.
`, redact(m.cfg.To), CheckpointDB)
	return nil
}

// redact hides a URI's password.
func redact(uri string) string {
	at := -1
	for i := len(uri) - 1; i >= 0; i-- {
		if uri[i] == '@' {
			at = i
			break
		}
	}
	scheme := 0
	for i := 0; i+3 <= len(uri); i++ {
		if uri[i:i+3] == "://" {
			scheme = i + 3
			break
		}
	}
	if at < 0 || scheme == 0 || at < scheme {
		return uri
	}
	cred := uri[scheme:at]
	for i := 0; i < len(cred); i++ {
		if cred[i] == ':' {
			return uri[:scheme] + cred[:i] + ":****" + uri[at:]
		}
	}
	return uri
}
