package session

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Power broadcast events (WM_POWERBROADCAST's wParam, and the Type of a power
// notification callback).
const (
	pbtSuspend         = 0x4  // PBT_APMSUSPEND
	pbtResumeSuspend   = 0x7  // PBT_APMRESUMESUSPEND: resumed, and the user is there
	pbtResumeAutomatic = 0x12 // PBT_APMRESUMEAUTOMATIC: resumed, for whatever reason
)

// powerEvent reads a power broadcast: whether it says the machine is going to sleep or
// has resumed.
func powerEvent(typ uintptr) (suspend, resume bool) {
	switch typ {
	case pbtSuspend:
		return true, false
	case pbtResumeAutomatic, pbtResumeSuspend:
		return false, true
	}
	return false, false
}

var (
	powrprof            = windows.NewLazySystemDLL("powrprof.dll")
	procPowerRegister   = powrprof.NewProc("PowerRegisterSuspendResumeNotification")
	procPowerUnregister = powrprof.NewProc("PowerUnregisterSuspendResumeNotification")
	powerCallback       = syscall.NewCallback(onPowerNotification)
	powerMu             sync.Mutex
	powerSuspend        func()
	powerResume         func()
	powerSubscription   deviceNotifySubscribeParameters
	powerRegistration   uintptr
)

// deviceNotifySubscribeParameters is DEVICE_NOTIFY_SUBSCRIBE_PARAMETERS. Windows keeps a
// pointer to it while the registration lasts, so it lives in a package variable.
type deviceNotifySubscribeParameters struct {
	callback uintptr
	context  uintptr
}

// onPowerNotification is the DEVICE_NOTIFY_CALLBACK_ROUTINE; Windows calls it on a
// thread of its own, so the app's functions run on goroutines.
func onPowerNotification(_, typ, _ uintptr) uintptr {
	suspend, resume := powerEvent(typ)
	powerMu.Lock()
	onSuspend, onResume := powerSuspend, powerResume
	powerMu.Unlock()
	switch {
	case suspend && onSuspend != nil:
		go onSuspend()
	case resume && onResume != nil:
		go onResume()
	}
	return 0 // ERROR_SUCCESS
}

// WatchResume calls onResume when Windows reports that the machine resumed, and
// onSuspend (if not nil) when it is going to sleep, until ctx ends.
//
// Wails raises its OnResume from the WM_POWERBROADCAST its window gets, but on Modern
// Standby machines (most current laptops) that broadcast goes only to applications that
// registered for suspend and resume notifications, and Wails never registers. This
// registers a callback with PowerRegisterSuspendResumeNotification (Windows 8 and
// later), which needs no window; the same wake may then be reported here and through
// Wails, so the caller passes both through a WakeGate.
func WatchResume(ctx context.Context, onSuspend, onResume func(), log *slog.Logger) error {
	if err := registerPower(onSuspend, onResume); err != nil {
		return err
	}
	<-ctx.Done()
	unregisterPower()
	return nil
}

// registerPower registers the process's one power notification callback.
func registerPower(onSuspend, onResume func()) error {
	powerMu.Lock()
	defer powerMu.Unlock()
	if powerRegistration != 0 {
		return fmt.Errorf("suspend and resume notifications: already registered")
	}
	if err := procPowerRegister.Find(); err != nil {
		return fmt.Errorf("suspend and resume notifications: %w", err)
	}
	const deviceNotifyCallback = 2
	powerSubscription = deviceNotifySubscribeParameters{callback: powerCallback}
	var handle uintptr
	r, _, _ := procPowerRegister.Call(deviceNotifyCallback, uintptr(unsafe.Pointer(&powerSubscription)), uintptr(unsafe.Pointer(&handle)))
	if r != 0 {
		return fmt.Errorf("register for suspend and resume notifications: %w", syscall.Errno(r))
	}
	powerRegistration, powerSuspend, powerResume = handle, onSuspend, onResume
	return nil
}

func unregisterPower() {
	powerMu.Lock()
	defer powerMu.Unlock()
	if powerRegistration != 0 {
		procPowerUnregister.Call(powerRegistration)
	}
	powerRegistration, powerSuspend, powerResume = 0, nil, nil
}
