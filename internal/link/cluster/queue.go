package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// QueueOptions shapes a durable work queue made by Node.Queue.
type QueueOptions struct {
	// AckWait is how long a worker has for a job before it is given to another (default 30
	// s); Work extends it while the handler runs, so it only matters when a worker dies.
	AckWait time.Duration
	// MaxDeliver bounds the tries of one job (default 5); then it is dropped with a warning.
	MaxDeliver int
	// Dedup is the window in which a second Add of the same job id is ignored (default 2 min).
	Dedup time.Duration
	// MaxAge drops jobs nobody took for this long (default 24 h).
	MaxAge time.Duration
	// Workers is how many jobs one Work call handles at once (default 1): a handler that
	// waits (for a desktop to link) does not hold up the jobs behind it.
	Workers int
}

// Queue is a durable work queue shared by every replica: each job added is handed to one worker
// (on any replica) at a time and removed when that worker succeeds; a worker that fails or dies
// has the job handed again (up to MaxDeliver tries). Jobs survive the loss of a replica (the
// stream has Node.Replicas copies). A job id added twice within Dedup is one job: several
// replicas may Add the same firing of a schedule (id = schedule + fire time) and it runs once.
type Queue struct {
	n    *Node
	name string
	subj string
	o    QueueOptions
	cons jetstream.Consumer
}

// Job is one job of a Queue as a worker receives it.
type Job struct {
	ID      string // the id given to Add
	Data    []byte // the data given to Add
	Attempt int    // 1 for the first try
}

// Queue returns the work queue name (letters, digits, - and _), creating its stream and its
// shared durable consumer when missing. JetStream not ready: retried until ctx ends.
func (n *Node) Queue(ctx context.Context, name string, o QueueOptions) (*Queue, error) {
	if err := validName(name); err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.MaxDeliver <= 0 {
		o.MaxDeliver = 5
	}
	if o.Dedup <= 0 {
		o.Dedup = 2 * time.Minute
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 24 * time.Hour
	}
	q := &Queue{n: n, name: name, subj: "rpa.queue." + name, o: o}
	stream := "rpa_queue_" + name
	err := retry(ctx, func(ctx context.Context) error {
		_, err := n.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: stream, Subjects: []string{q.subj}, Retention: jetstream.WorkQueuePolicy,
			Replicas: n.replicas, Duplicates: o.Dedup, MaxAge: o.MaxAge, Storage: jetstream.FileStorage,
		})
		if err != nil {
			return err
		}
		q.cons, err = n.js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
			Durable: "workers", AckPolicy: jetstream.AckExplicitPolicy, AckWait: o.AckWait,
			MaxDeliver: o.MaxDeliver, MaxAckPending: 1000,
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("queue %s: %w", name, err)
	}
	return q, nil
}

// Add enqueues a job. dup is true when a job with this id was already added within the Dedup
// window (nothing new is queued then).
func (q *Queue) Add(ctx context.Context, id string, data []byte) (dup bool, err error) {
	if id == "" {
		return false, errors.New("queue: a job needs an id")
	}
	var ack *jetstream.PubAck
	err = retry(ctx, func(ctx context.Context) error {
		var err error
		ack, err = q.n.js.PublishMsg(ctx, &nats.Msg{Subject: q.subj, Data: data, Header: nats.Header{"Rpa-Job-Id": []string{id}}}, jetstream.WithMsgID(id))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("queue %s: add %s: %w", q.name, id, err)
	}
	return ack.Duplicate, nil
}

// Work hands jobs to handle, QueueOptions.Workers at a time (one by default), until ctx ends
// (then it returns nil, once the handlers running have returned). A job is acknowledged
// (removed) when handle returns nil and handed again after a short wait when it returns an
// error; while handle runs the job's AckWait is extended, so a long job is not handed to a
// second worker. Several replicas may Work the same queue: each job goes to one of them.
func (q *Queue) Work(ctx context.Context, handle func(context.Context, Job) error) error {
	workers := max(q.o.Workers, 1)
	slots := make(chan struct{}, workers)
	var wg sync.WaitGroup
	cc, err := q.cons.Consume(func(m jetstream.Msg) {
		slots <- struct{}{} // a free worker (the consumer waits meanwhile)
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			q.handle(ctx, m, handle)
		}()
	}, jetstream.PullMaxMessages(workers))
	if err != nil {
		return fmt.Errorf("queue %s: %w", q.name, err)
	}
	<-ctx.Done()
	cc.Drain()
	<-cc.Closed()
	wg.Wait()
	return nil
}

// handle runs handle on message m and acknowledges it, or has it handed again.
func (q *Queue) handle(ctx context.Context, m jetstream.Msg, handle func(context.Context, Job) error) {
	meta, _ := m.Metadata()
	job := Job{ID: m.Headers().Get("Rpa-Job-Id"), Data: m.Data(), Attempt: 1}
	if meta != nil {
		job.Attempt = int(meta.NumDelivered)
	}
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(max(q.o.AckWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	herr := handle(ctx, job)
	close(stop)
	if herr == nil {
		_ = m.DoubleAck(context.WithoutCancel(ctx))
		return
	}
	if job.Attempt >= q.o.MaxDeliver {
		q.n.log.Warn("job failed its last try; dropped", "queue", q.name, "job", job.ID, "tries", job.Attempt, "err", herr)
		_ = m.Term()
		return
	}
	q.n.log.Info("job failed; it will be tried again", "queue", q.name, "job", job.ID, "try", job.Attempt, "err", herr)
	_ = m.NakWithDelay(min(time.Duration(job.Attempt)*time.Second, 30*time.Second))
}

// Pending is how many jobs wait (not yet handed to a worker).
func (q *Queue) Pending(ctx context.Context) (uint64, error) {
	info, err := q.cons.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.NumPending, nil
}
