package controller

import (
	"context"
	"errors"
	"sync"

	"k8s.io/klog/v2"
)

// StatusDuties run leader election and the Ingress status writer beside
// a Controller in a cluster: every replica serves traffic and records
// what it serves; only the leader writes status.
//
// Start runs them on a context of their own, so that the end of the
// caller's context does not release the Lease before Shutdown has cleared
// the status: Shutdown stops the writer, clears the status when this
// replica leads and UpdateStatusOnShutdown is set, then releases the
// Lease (another replica takes over at once) and waits for the election
// to end.
type StatusDuties struct {
	Elector *Elector
	Writer  *StatusWriter
	// UpdateStatusOnShutdown clears the status at Shutdown
	// (--update-status-on-shutdown).
	UpdateStatusOnShutdown bool
	// OtherReplicas, when set, counts the other replicas at Shutdown:
	// with any left, the status is left to the next leader (see
	// OtherReplicas); nil clears whenever UpdateStatusOnShutdown is set.
	OtherReplicas func(ctx context.Context) (int, error)

	mu           sync.Mutex
	started      bool
	stopWriter   context.CancelFunc
	stopElection context.CancelFunc
	writerDone   chan struct{}
	electionDone chan struct{}

	shutdown    sync.Once
	shutdownErr error
}

// Start runs the writer and the election until Shutdown; ctx gives the
// logger and values only, its end stops nothing.
func (d *StatusDuties) Start(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.started {
		return
	}
	d.started = true
	base := context.WithoutCancel(ctx)
	electionCtx, stopElection := context.WithCancel(base)
	writerCtx, stopWriter := context.WithCancel(base)
	d.stopWriter, d.stopElection = stopWriter, stopElection
	d.writerDone, d.electionDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(d.writerDone)
		d.Writer.Run(writerCtx)
	}()
	go func() {
		defer close(d.electionDone)
		d.Elector.Run(electionCtx, func(lctx context.Context) {
			d.Writer.SetLeading(true)
			<-lctx.Done()
			d.Writer.SetLeading(false)
		})
	}()
}

// Shutdown stops the duties (see StatusDuties); it may be called more
// than once and from any goroutine, and returns the first call's result.
// ctx bounds the clearing of the status.
func (d *StatusDuties) Shutdown(ctx context.Context) error {
	d.shutdown.Do(func() { d.shutdownErr = d.stop(ctx) })
	return d.shutdownErr
}

func (d *StatusDuties) stop(ctx context.Context) error {
	d.mu.Lock()
	started := d.started
	d.started = true // a Start after Shutdown does nothing
	d.mu.Unlock()
	if !started {
		return nil
	}
	log := klog.FromContext(ctx).WithName("status")
	d.stopWriter()
	<-d.writerDone
	var err error
	switch {
	case !d.Elector.IsLeader():
	case !d.UpdateStatusOnShutdown:
		log.Info("Leaving the Ingress status as it is (--update-status-on-shutdown=false)")
	default:
		if d.OtherReplicas != nil {
			n, cerr := d.OtherReplicas(ctx)
			if cerr != nil {
				log.Error(cerr, "Counting the other replicas; clearing the status all the same")
			} else if n > 0 {
				log.Info("Leaving the Ingress status to the next leader: other replicas run", "replicas", n)
				break
			}
		}
		log.Info("Clearing the status of the Ingresses this controller serves (--update-status-on-shutdown)")
		if cerr := d.Writer.Clear(klog.NewContext(ctx, log)); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	d.stopElection()
	<-d.electionDone
	return err
}
