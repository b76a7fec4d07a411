"""The web companion: phones at the table (and, on top of the same server, the browser panel).

It runs inside the console process on the same engine, controller and store: phone messages become
events on the app's queue, and the app loop publishes each new state and frame to a hub that the
connections read. Nothing here decides a rule; the engine's refusals go back to the phone.
"""
