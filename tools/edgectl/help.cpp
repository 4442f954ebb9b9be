// robot-edgectl --help.
#include "tools/edgectl/options.hpp"

namespace robot_edge::edgectl {

std::string HelpText() {
  return R"(Usage: robot-edgectl [OPTIONS] COMMAND [ARGS...]

Talks to robot-edged, the control daemon of the humanoid, over its local API.

Commands:
  status              mode, controller, alerts and a per-joint table (position, velocity,
                      temperature, current, torque) from one telemetry frame
  stand               ModeCommand(STAND): ramp to the stand pose (~2 s)
  damp                ModeCommand(DAMP): motors go limp. Always accepted (emergency stop); sent
                      as an observer unless --controller is given
  walk VX VY VYAW     walk at VX m/s (-2..2), VY m/s (-1..1), VYAW rad/s (-2..2); needs STAND and
                      a locomotion policy. Stays connected, re-sending the velocity every second,
                      until --duration or Ctrl-C, then sends 0 0 0 (the daemon also stops the
                      walk when its controller disconnects)
  move JOINT=RAD...   stream a smooth (quintic) trajectory from the measured pose to the given
                      joint positions (rad) over --duration at --rate; the other joints hold
                      their measured position. Joint names as `status` prints them (any case)
  hold                stream the measured pose for --duration (keeps a trajectory session alive)
  sine JOINT          a sine of --amplitude RAD at --frequency HZ on one joint through the joint
                      stream (MOVE/JOINT_STREAM: every joint at --kp / --kd, the others holding
                      their measured position), --rate commands per second for --duration; then
                      prints the command-to-effect latency measured from the echoed
                      user_command_key (sent to the control tick that applied it)
  watch               one line per telemetry frame (10 Hz) until Ctrl-C or --count
  events              follow system events: errors, controller changes, diagnostics (summary)
  diag                wait for the next diagnostics (every ~1 s) and print it: CAN bus health,
                      control-loop timing, command drop counters

Bring-up commands (docs/bring-up.md): in DAMP only, as a controller of the config's
api.maintenance_controllers (--controller, default maintainer):
  scan                which configured motors answer (family, position, temperature, faults),
                      which are missing, and which other ids 1..--max-id answer on each bus;
                      exit 1 unless every motor answers cleanly and nothing else does
  jog JOINT RAD       move one joint to RAD at --speed with a fifth of its gains, every other
                      joint limp; ends in DAMP when it arrives, after --duration, on Ctrl-C or
                      when the connection is lost (the daemon DAMPs a jog not renewed for 200 ms)
  check-direction JOINT  jog +--amount and back: whether the motor follows its commands; then
                      confirm by eye that the joint turned in its positive direction. With
                      --model ROBOT.xml (the robot's MJCF, hanging from a gantry): jog to
                      +-amount, hold, and judge by gravity whether the torques the motors
                      measure hold the robot at the pose its encoders report as configured or
                      reversed (exit 0 agrees, 1 reversed, 4 cannot tell at this pose)
  calibrate           with the robot held in the --pose (zero: every joint at 0 rad, on a jig;
                      stand: the stand pose), write the joint offsets that make each read its
                      pose angle to the config's calibration file; restart robot-edged to use it
  zero JOINT --confirm  send the motor's own set-zero command (its firmware's zero moves)
  clear-fault JOINT   clear a latched fault in a Damiao or Robstride motor's firmware, then
                      enable it (AK motors have none: power-cycle them)

Recording (docs/recording-and-live-view.md; status and list for anyone, the rest as a controller,
--controller, default maintainer):
  record start|stop|status   continuous recording (MCAP files in the config's recorder.directory)
  blackbox list              the black-box files (the last seconds before a critical alert)
  blackbox save [--reason TEXT]  write the black box now (its last seconds and the next ones)

Connection options:
  --socket PATH       robot-edged's Unix socket (default $ROBOT_EDGE_SOCKET, else
                      /run/robot-edge/api.sock)
  --tcp HOST:PORT     connect over TCP instead (the daemon's api.tcp); IPv6 as [ADDR]:PORT
  --tls-ca FILE       with --tcp: speak TLS (the daemon's api.tls), trusting the CA in FILE
  --tls-name NAME     the name or IP the daemon's certificate must carry (default: --tcp's HOST)
  --tls-cert FILE     a client certificate, when the daemon asks one (api.tls.client_ca)
  --tls-key FILE      the key of --tls-cert
  --token-file FILE   the controller's token over TCP, read from FILE (default $ROBOT_EDGE_TOKEN;
                      api.access.<name>.token_file). Never --token TOKEN: a command line is
                      visible to every user
  --controller NAME   controller named in the Hello (default: cloud for stand, walk, move, hold, sine;
                      observer "" for the others; --controller "" makes any command an observer)
  --timeout S         connect and answer timeout in seconds (default 2)
  --json              print protobuf messages as JSON, one per line (proto field names; 64-bit
                      integers are strings, as the protobuf JSON mapping says)

Command options:
  --duration S        move: length of the ramp (default 2); hold, sine: how long (2, 4);
                      walk: how long to walk (default 0 = until Ctrl-C); jog: at most (20)
  --rate HZ           move, hold: packets per second, 10..500 (default 50); sine: 10..1000 (200)
  --hold S            move: keep streaming the goal for S seconds after the ramp (default 0)
  --max-speed RAD_S   move: refuse a ramp whose peak joint speed exceeds this (default 2)
  --amplitude RAD     sine: 0..0.5 (default 0.1)
  --frequency HZ      sine: 0..5 (default 0.5)
  --kp N·m/rad        sine: every joint's stiffness, 0..500 (default 40)
  --kd N·m·s/rad      sine: every joint's damping, 0..5 (default 1)
  --count N           watch, events: exit after N messages (default 0 = until Ctrl-C)
  --resume N          events: first replay the kept events with a sequence above N
  --joints A,B,...    watch: also print these joints' positions
  --speed RAD_S       jog, check-direction: joint speed, 0..1 (default 0.2)
  --amount RAD        check-direction: the step, 0..0.8 (default 0.1; 0.5 with --model)
  --model FILE.xml    check-direction: judge by gravity with the robot's MJCF model
  --calibrated-at RAD
                      check-direction --model: the joint's angle when its offset was
                      calibrated (0 after calibrate --pose zero, default; its stand angle after
                      --pose stand)
  --max-id N          scan: probe ids 1..N on every bus (default 32)
  --pose zero|stand   calibrate: the calibration pose (default zero)
  --confirm           zero: really write the motor's zero
  --reason TEXT       blackbox save: why (in the file's name and metadata; default operator)
  -h, --help          print this text
  --version           print robot-edgectl's version

Commanding subcommands ask for a CommandResult per command and print "accepted" or
"refused: REASON" (e.g. velocity_in_damp, velocity_no_policy, not_controller,
blocked_by_alert).

Trajectory sessions: in MOVE/TRAJECTORY the robot must receive a trajectory at least every
200 ms or it DAMPs by itself. When move or hold ends or is interrupted, streaming stops and the
robot DAMPs 200 ms later: use --hold, or follow with `robot-edgectl stand`.

Exit status:
  0  done; every command accepted
  1  refused by robot-edged, no answer in time, connection lost, move interrupted
  2  bad command line, unknown joint, or a move faster than --max-speed
  3  cannot connect to robot-edged (not running, wrong socket, no permission)
  4  check-direction --model: gravity cannot tell the direction at this pose (watch it)

Examples:
  $ robot-edgectl status
  $ robot-edgectl stand && sleep 2 && robot-edgectl walk 0.3 0 0 --duration 5
  $ robot-edgectl move L_Shoulder_Pitch=0.5 L_Elbow=1.2 --duration 3 --hold 1
  $ robot-edgectl stand && sleep 2 && robot-edgectl sine L_Elbow --amplitude 0.2 --rate 500
  $ robot-edgectl watch --joints L_Knee,R_Knee
  $ robot-edgectl events --resume 120 --json
  $ robot-edgectl --tcp 192.168.1.20:7000 --token-file ~/.config/robot-edge/cloud.token diag
  $ robot-edgectl scan && robot-edgectl jog L_Knee 0.3 && robot-edgectl calibrate --pose zero
)";
}

}  // namespace robot_edge::edgectl
