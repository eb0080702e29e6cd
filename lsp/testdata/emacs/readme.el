;;; readme.el --- the README's Emacs set-up, as a user's init.el  -*- lexical-binding: t; -*-

;; Run by TestEmacsReadmeSetup after the README's init.el block (loaded
;; with a fresh HOME, so eglot comes from the system's packages as it does
;; for a user): opening a Markdown file of a project starts agentls for it,
;; and a reply in it applies to a.go.  Prints OK and exits 0, or FAIL:.

(defun readme-fail (fmt &rest args)
  (princ (concat "FAIL: " (apply #'format fmt args) "\n") #'external-debugging-output)
  (kill-emacs 1))

(condition-case err
    (let* ((root (file-name-as-directory (getenv "AGENTLS_ROOT")))
           (default-directory root))
      ;; Batch Emacs cannot answer eglot's prompt and has no idle time.
      (setq eglot-confirm-server-initiated-edits nil
            eglot-sync-connect t
            eglot-send-changes-idle-time 0)
      (unless (eq (key-binding (kbd "C-c a")) 'agentls-command-map)
        (readme-fail "C-c a is %S" (key-binding (kbd "C-c a"))))
      ;; a.go open (eglot asks before it edits a file no buffer visits).
      (find-file-noselect (expand-file-name "a.go" root))
      (let ((reply (find-file-noselect (expand-file-name "reply.md" root))))
        (with-current-buffer reply
          ;; eglot-ensure connects after the next command; run its hook as
          ;; the command loop would.
          (run-hooks 'post-command-hook)
          (let ((deadline (+ (float-time) 10)))
            (while (and (not (eglot-current-server)) (< (float-time) deadline))
              (accept-process-output nil 0.05)
              (run-hooks 'post-command-hook)))
          (unless (eglot-current-server) (readme-fail "agentls did not start for reply.md"))
          (goto-char (point-max))
          (insert (getenv "AGENTLS_REPLY"))
          (agentls-apply-reply))
        (let ((deadline (+ (float-time) 10)) a)
          (while (and (not (and (setq a (find-buffer-visiting (expand-file-name "a.go" root)))
                                (with-current-buffer a (string-search "type Settings struct{}" (buffer-string)))))
                      (< (float-time) deadline))
            (accept-process-output nil 0.05))
          (unless (and a (with-current-buffer a (string-search "type Settings struct{}" (buffer-string))))
            (readme-fail "the reply did not apply to a.go: %S"
                         (and a (with-current-buffer a (buffer-string))))))
        (princ "OK\n")
        (ignore-errors (eglot-shutdown (eglot-current-server)))
        (kill-emacs 0)))
  (error (readme-fail "%s" (error-message-string err))))

;;; readme.el ends here
