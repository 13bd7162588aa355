package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// runAllPods asks every running pod, at most four at a time, then prints
// the backends and where the pods disagree. With --backend, a pod that
// lacks it disagrees with those that have it.
func (o *BackendsOptions) runAllPods(ctx context.Context, pods []corev1.Pod) error {
	var usable []*corev1.Pod
	for i := range pods {
		if err := podUsable(&pods[i], o.Container); err != nil {
			fmt.Fprintf(o.ErrOut, "skipped: %v\n", err)
			continue
		}
		usable = append(usable, &pods[i])
	}
	if len(usable) == 0 {
		return fmt.Errorf("none of the %s runs a controller", o.query.describe())
	}
	results := make([]podAnswer, len(usable))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, p := range usable {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			a := podAnswer{Pod: p.Name}
			if all, err := o.ask(ctx, p); err != nil {
				a.Error = err.Error()
			} else {
				shown := all
				if o.Backend != "" {
					shown, _ = o.filter(all)
				}
				a.all, a.backends, a.Backends = all, shown, wireBackends(shown)
			}
			results[i] = a
		}()
	}
	wg.Wait()
	answers := results
	if o.Backend != "" && answeredCount(answers) > 0 && !anyBackends(answers) {
		return fmt.Errorf("no backend %q on any of the pods that answered (kubectl ingress backends --list names them)", o.Backend)
	}
	report := allPodsReport{Pods: answers, Differences: compareAnswers(answers)}
	report.Agree = len(report.Differences) == 0
	failed := 0
	for _, a := range answers {
		if a.Error != "" {
			failed++
			fmt.Fprintf(o.ErrOut, "error: pod %s/%s: %s\n", o.query.Namespace, a.Pod, a.Error)
		}
	}
	if err := o.printAllPods(report); err != nil {
		return err
	}
	switch {
	case failed > 0:
		return fmt.Errorf("%d of the %d pods did not answer", failed, len(answers))
	case !report.Agree:
		return &exitError{code: backendsExitDisagree, err: fmt.Errorf("the pods disagree"), silent: true}
	}
	return nil
}

func (o *BackendsOptions) printAllPods(r allPodsReport) error {
	if o.Output == outputJSON || o.Output == outputYAML {
		return printObject(o.Out, o.Output, r)
	}
	var first *podAnswer
	answered := []string{}
	for i := range r.Pods {
		if r.Pods[i].Error == "" {
			answered = append(answered, r.Pods[i].Pod)
			if first == nil {
				first = &r.Pods[i]
			}
		}
	}
	if first == nil {
		return nil
	}
	if o.Output == outputName {
		// The union of the names: a name some pods lack is a difference.
		seen := map[string]bool{}
		var union []backendInfo
		for _, a := range r.Pods {
			for _, b := range a.backends {
				if !seen[b.wire.Name] {
					seen[b.wire.Name] = true
					union = append(union, b)
				}
			}
		}
		sortBackends(union)
		if err := printBackends(o.Out, outputName, union, union, false, false); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(o.Out, "Backends of pod %s (%d of %d pods answered: %s)\n", first.Pod, len(answered), len(r.Pods), strings.Join(answered, ", "))
		if err := o.print(first.backends, first.all); err != nil {
			return err
		}
	}
	w := o.Out
	if o.Output == outputName {
		w = o.ErrOut
	}
	switch {
	case len(answered) == 1:
		_, err := fmt.Fprintf(w, "\nOnly pod %s answered: nothing to compare.\n", first.Pod)
		return err
	case r.Agree:
		_, err := fmt.Fprintf(w, "\nThe %d pods that answered agree.\n", len(answered))
		return err
	}
	fmt.Fprintf(w, "\nThe pods disagree on %d backend aspect(s):\n", len(r.Differences))
	return printDifferences(w, r.Differences)
}

// anyBackends reports whether any answer holds a backend.
func anyBackends(answers []podAnswer) bool {
	for _, a := range answers {
		if len(a.backends) > 0 {
			return true
		}
	}
	return false
}

func answeredCount(answers []podAnswer) int {
	n := 0
	for _, a := range answers {
		if a.Error == "" {
			n++
		}
	}
	return n
}
